import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A listening HTTP/2 server on the core: in cleartext, HTTP/2 with prior knowledge or HTTP/1.1 chosen by the first
/// bytes (``CleartextProtocolDetector``); with TLS, ALPN `h2` and an HTTP/1.1 fallback; or (for a plain scrape
/// endpoint) cleartext HTTP/1.1 only. Every request goes to one ``HTTP2RequestHandler``.
public final class HTTP2CoreServer: Sendable {
    /// Where and how the server listens.
    public struct Configuration: Sendable {
        /// The address to bind, e.g. `127.0.0.1` or `::`.
        public var host: String
        /// The port to bind; `0` picks a free one.
        public var port: Int
        /// With TLS, ALPN offers `h2` and `http/1.1` (set by the server); without, cleartext HTTP/2 with prior
        /// knowledge and HTTP/1.1, told apart by the first bytes (or HTTP/1.1 only, see ``cleartextHTTP1``).
        public var tls: TLSConfiguration?
        /// Without TLS, serve plain HTTP/1.1 instead of HTTP/2 with prior knowledge (e.g. a Prometheus scrape port).
        public var cleartextHTTP1: Bool
        /// Limits per connection.
        public var limits: HTTP2Limits
        /// How many connections are accepted, in all and per client address.
        public var admission: HTTP2ConnectionAdmission
        /// What the server's connections hold now (open, buffered bytes); pass one in to read it from outside.
        public var load: HTTP2ServerLoad
        /// The response to a request the core refuses itself (413, 431): status and message in, response out.
        public var rejection: @Sendable (Int, String) -> HTTP2Response

        /// A configuration; refusals are `text/plain` by default.
        public init(
            host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration? = nil, cleartextHTTP1: Bool = false,
            limits: HTTP2Limits = .init(), admission: HTTP2ConnectionAdmission = .init(),
            load: HTTP2ServerLoad = .init(),
            rejection: @escaping @Sendable (Int, String) -> HTTP2Response = HTTP2CoreServer.plainTextRejection
        ) {
            self.host = host
            self.port = port
            self.tls = tls
            self.cleartextHTTP1 = cleartextHTTP1
            self.limits = limits
            self.admission = admission
            self.load = load
            self.rejection = rejection
        }
    }

    /// Sent down every connection's pipeline on shutdown: GOAWAY now, closed by `deadline` at the latest.
    struct GracefulShutdown {
        let deadline: NIODeadline
    }

    private let listener: any Channel
    private let connections: ConnectionRegistry

    /// The bound port (the chosen one when configured with `0`).
    public let port: Int

    private init(listener: any Channel, connections: ConnectionRegistry) {
        self.listener = listener
        self.connections = connections
        self.port = listener.localAddress?.port ?? 0
    }

    /// Binds and starts serving.
    public static func start(
        configuration: Configuration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger,
        handler: @escaping HTTP2RequestHandler
    ) async throws -> HTTP2CoreServer {
        let connection = HTTP2ConnectionConfiguration(
            handler: handler, limits: configuration.limits, load: configuration.load,
            rejection: configuration.rejection)
        let tls = try configuration.tls.map { tls in
            var tls = tls
            tls.applicationProtocols = ["h2", "http/1.1"]
            return try NIOSSLContext(configuration: tls)
        }
        let connections = ConnectionRegistry()
        let (admission, load) = (configuration.admission, configuration.load)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // A peer that vanished (power loss, a dropped NAT mapping) is found within about 2 minutes of silence.
            .childChannelOption(.socketOption(.so_keepalive), value: 1)
            .childChannelOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPIDLE)), value: 60)
            .childChannelOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPINTVL)), value: 10)
            .childChannelOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPCNT)), value: 6)
            .childChannelInitializer { channel in
                // Counted before anything is read: a refused connection costs one accept and one close.
                switch load.admit(channel.remoteAddress, admission) {
                case .failure(let refusal):
                    admission.onRefused(refusal)
                    logger.debug("connection refused", metadata: ["http2.refusal": "\(refusal.rawValue)"])
                    // NIO closes the accepted socket when its initializer fails (it is not even registered yet).
                    return channel.eventLoop.makeFailedFuture(refusal)
                case .success(let ticket):
                    channel.closeFuture.whenComplete { _ in load.release(ticket) }
                }
                connections.add(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try Self.configure(
                        channel, tls: tls, http1: configuration.cleartextHTTP1, connection: connection, logger: logger)
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        return HTTP2CoreServer(listener: listener, connections: connections)
    }

    /// Stops accepting, sends GOAWAY on every connection so in-flight streams finish and new ones are refused, and
    /// returns once every connection has closed: by itself, or forcibly after `timeout`.
    public func shutdown(timeout: Duration = .seconds(10)) async {
        try? await listener.close()
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let open = connections.all()
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(GracefulShutdown(deadline: deadline))
            // also covers a connection still in its TLS handshake, which has no handler to act on the event yet
            channel.eventLoop.scheduleTask(deadline: deadline + .milliseconds(50)) { channel.close(promise: nil) }
        }
        for channel in open { try? await channel.closeFuture.get() }
    }

    /// The connections open now (tests and diagnostics).
    public var connectionCount: Int { connections.all().count }

    /// `text/plain` refusals: the message and a newline.
    @Sendable public static func plainTextRejection(status: Int, message: String) -> HTTP2Response {
        HTTP2Response(
            status: status, headers: ["content-type": "text/plain; charset=utf-8"],
            body: ByteBuffer(string: message + "\n"))
    }

    private static func configure(
        _ channel: any Channel, tls: NIOSSLContext?, http1: Bool, connection: HTTP2ConnectionConfiguration,
        logger: Logger
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        guard let tls else {
            if http1 { return try configureHTTP1(pipeline, connection: connection) }
            // HTTP/2 with prior knowledge or HTTP/1.1 (browsers), chosen by the first bytes.
            let detector = CleartextProtocolDetector(
                handshakeTimeout: TimeAmount(connection.limits.handshakeTimeout)
            ) { pipeline, choice in
                switch choice {
                case .http2:
                    try pipeline.addHandler(HTTP2ConnectionHandler(configuration: connection, logger: logger))
                case .http1:
                    try configureHTTP1(pipeline, connection: connection)
                }
            }
            return try pipeline.addHandler(detector)
        }
        try pipeline.addHandler(NIOSSLServerHandler(context: tls))
        // Until ALPN has picked a protocol no idle timer runs: this one closes a client that never finishes.
        let handshake = channel.eventLoop.scheduleTask(in: TimeAmount(connection.limits.handshakeTimeout)) {
            channel.close(promise: nil)
        }
        try pipeline.addHandler(
            ApplicationProtocolNegotiationHandler { result, channel in
                handshake.cancel()
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if case .negotiated("h2") = result {
                        try pipeline.addHandler(HTTP2ConnectionHandler(configuration: connection, logger: logger))
                    } else {
                        try configureHTTP1(pipeline, connection: connection)
                    }
                }
            })
    }

    /// The head's deadline, NIO's HTTP/1.1 codec (one request at a time), the idle timeout, and the handler.
    private static func configureHTTP1(
        _ pipeline: ChannelPipeline.SynchronousOperations, connection: HTTP2ConnectionConfiguration
    ) throws {
        try pipeline.addHandler(HTTP1HeadDeadline(timeout: TimeAmount(connection.limits.requestTimeout)))
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
        try pipeline.addHandler(IdleStateHandler(allTimeout: TimeAmount(connection.limits.idleTimeout)))
        try pipeline.addHandler(HTTP1ConnectionHandler(configuration: connection))
    }
}

/// The server's open connections, so shutdown can reach each one.
private final class ConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = channels.withLock { $0.removeValue(forKey: id) } }
    }

    func all() -> [any Channel] { channels.withLock { Array($0.values) } }
}
