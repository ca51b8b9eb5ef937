import Logging
import NIOCore
import NIOPosix
import NIOSSL

extension HTTP2ClientConnection {
    /// TLS for a connection: the context (its ALPN list must offer `h2`) and the name to send as SNI and verify.
    package struct TLS: Sendable {
        package var context: NIOSSLContext
        package var serverHostname: String?

        package init(context: NIOSSLContext, serverHostname: String?) {
            self.context = context
            self.serverHostname = serverHostname
        }
    }

    /// Opens a connection: TCP, then TLS with ALPN `h2` when `tls` is given, else cleartext HTTP/2 with prior
    /// knowledge; returns once the peer's SETTINGS arrived, so its SETTINGS_MAX_CONCURRENT_STREAMS holds from the
    /// first request on. `connectTimeout` bounds it all.
    package static func connect(
        host: String,
        port: Int,
        tls: TLS?,
        connectTimeout: Duration,
        configuration: HTTP2ClientSessionConfiguration,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger
    ) async throws -> HTTP2ClientConnection {
        let deadline = NIODeadline.now() + TimeAmount(connectTimeout)
        let bootstrap = ClientBootstrap(group: eventLoopGroup)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        let channel: any Channel
        let ready: EventLoopFuture<NIOLoopBound<HTTP2ClientSession>>
        do {
            (channel, ready) = try await bootstrap.connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let negotiated = try prepare(channel, tls: tls, configuration: configuration, logger: logger)
                    let ready = negotiated.flatMap { session in
                        session.value.peerSettings.futureResult.map { session }
                    }
                    // TLS and the peer's SETTINGS share the connect timeout; when it runs out, the connection closes.
                    let timer = channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
                    ready.whenComplete { _ in timer.cancel() }
                    return (channel, ready)
                }
            }
        } catch {
            throw HTTP2ClientConnectError(kind: .connect, detail: "\(error)")
        }
        do {
            let session = try await withTaskCancellationHandler {
                try await ready.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            logger.debug("opened HTTP/2 connection", metadata: ["http2.tls": "\(tls != nil)"])
            return HTTP2ClientConnection(channel: channel, session: session)
        } catch {
            channel.close(promise: nil)
            if Task.isCancelled { throw CancellationError() }
            if NIODeadline.now() >= deadline, tls != nil {
                throw HTTP2ClientConnectError(kind: .tls, detail: "TLS handshake or HTTP/2 SETTINGS timed out")
            }
            throw error
        }
    }

    /// Adds the handlers: the nghttp2 session at once (cleartext), or TLS and, once ALPN picked `h2`, the session.
    private static func prepare(
        _ channel: any Channel, tls: TLS?, configuration: HTTP2ClientSessionConfiguration, logger: Logger
    ) throws -> EventLoopFuture<NIOLoopBound<HTTP2ClientSession>> {
        let eventLoop = channel.eventLoop
        let makeSession = {
            HTTP2ClientSession(
                configuration: configuration, peerSettings: eventLoop.makePromise(of: Void.self), logger: logger)
        }
        let sync = channel.pipeline.syncOperations
        guard let tls else {
            let session = makeSession()
            try sync.addHandler(session)
            return eventLoop.makeSucceededFuture(NIOLoopBound(session, eventLoop: eventLoop))
        }
        let negotiated = eventLoop.makePromise(of: NIOLoopBound<HTTP2ClientSession>.self)
        try sync.addHandler(NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverHostname))
        try sync.addHandler(HTTP2ClientTLSNegotiation(negotiated: negotiated, makeSession: makeSession))
        return negotiated.futureResult
    }
}
