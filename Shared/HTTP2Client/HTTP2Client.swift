import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// An HTTP/2 client for one peer: one connection, requests multiplexed as concurrent streams.
///
/// Every SecurePush peer uses it, service to service and device to service. It speaks cleartext HTTP/2 with
/// prior knowledge (`http://`, h2c) and HTTP/2 over TLS with ALPN `h2` (`https://`).
///
/// It stands on the same libnghttp2 core as the services' server (``HTTP2Core``: an nghttp2 client session per
/// connection, NIO for sockets and TLS); this type adds the connection policy on top.
///
/// Why not AsyncHTTPClient: AHC speaks HTTP/2 only over TLS (ALPN) and falls back to HTTP/1.1 on `http://`
/// URLs, while our services run cleartext HTTP/2 with prior knowledge when no certificate is configured, and
/// the device's direct channel is a long-lived streamed response.
///
/// - The connection is opened lazily by the first request; concurrent first requests share one connect.
/// - Requests run as concurrent streams up to the peer's SETTINGS_MAX_CONCURRENT_STREAMS; more wait in line
///   (nghttp2 sends their HEADERS as streams close), within their timeouts.
/// - When the connection closes or the peer sends GOAWAY, the next request opens a new connection.
///   A request whose stream never reached the peer is retried once on a fresh connection; a request that
///   was sent and then lost its connection fails with ``HTTP2ClientError/connectionClosed`` (no blind retries).
///   "Never reached the peer" means: its HEADERS were never sent, the peer refused the stream (REFUSED_STREAM), or
///   its stream id is above the last stream id of the peer's GOAWAY (RFC 9113 §6.8).
/// - A streamed body is paced by its reader: the flow-control window opens only as much as it has read.
/// - Every call is bounded by its timeout; cancelling the calling task closes the stream.
///
/// Call ``shutdown()`` when done; later calls throw ``HTTP2ClientError/shutdown``.
public final class HTTP2Client: Sendable {
    let endpoint: HTTP2Endpoint
    let configuration: HTTP2ClientConfiguration
    let eventLoopGroup: any EventLoopGroup
    let sslContext: NIOSSLContext?
    let logger: Logger
    let pool = Mutex(ConnectionPool())

    /// - Parameters:
    ///   - baseURL: `http://host:port` (cleartext HTTP/2) or `https://host:port` (TLS), optionally with a
    ///     path prefix for every request.
    ///   - configuration: timeouts, trust roots and limits.
    ///   - eventLoopGroup: where the connection runs.
    ///   - logger: receives `debug` messages about connections; nothing louder.
    /// - Throws: ``HTTP2ClientError/invalidURL`` for a malformed URL, ``HTTP2ClientError/tlsFailure`` when the
    ///   TLS configuration (trust roots file) cannot be loaded.
    public init(
        baseURL: String,
        configuration: HTTP2ClientConfiguration = .init(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws {
        let endpoint = try HTTP2Endpoint(parsing: baseURL)
        self.endpoint = endpoint
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        var logger = logger
        logger[metadataKey: "http2.peer"] = "\(endpoint.usesTLS ? "https" : "http")://\(endpoint.authority)"
        self.logger = logger
        if endpoint.usesTLS {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.applicationProtocols = ["h2"]
            tls.minimumTLSVersion = .tlsv12
            if let trustRootsPEMFile = configuration.trustRootsPEMFile {
                tls.trustRoots = .file(trustRootsPEMFile)
            }
            do {
                sslContext = try NIOSSLContext(configuration: tls)
            } catch {
                throw HTTP2ClientError(.tlsFailure, "cannot load the TLS configuration: \(error)")
            }
        } else {
            sslContext = nil
        }
    }

    deinit {
        let connection = pool.withLock { $0.currentConnection }
        connection?.close()
    }

    /// Sends `request` and buffers the whole response.
    ///
    /// The timeout (`request.timeout ?? configuration.requestTimeout`) covers connecting, sending and receiving.
    /// - Throws: ``HTTP2ClientError``, or `CancellationError` when the task was cancelled.
    public func execute(_ request: HTTP2Request) async throws -> HTTP2Response {
        let limit = configuration.maxResponseBytes
        return try await perform(request, timeoutCoversBody: true) { head, source in
            try await Self.collectResponse(head: head, from: source, limit: limit)
        }
    }

    /// Sends `request` and hands the response to `body` as it streams in (used for `text/event-stream`).
    ///
    /// The timeout covers only the time until the response head arrives; the body may stream for as long as
    /// `body` runs. The stream is closed (RST_STREAM) when `body` returns or throws; errors thrown by `body`
    /// are rethrown unchanged.
    public func withStreamingResponse<T: Sendable>(
        _ request: HTTP2Request,
        _ body: (HTTP2StreamingResponse) async throws -> T
    ) async throws -> T {
        try await perform(request, timeoutCoversBody: false) { head, source in
            let response = HTTP2StreamingResponse(
                status: head.status, headers: head.headers, body: HTTP2ResponseBody(source: source))
            do {
                return try await body(response)
            } catch {
                throw HTTP2CallerError(underlying: error)
            }
        }
    }

    /// Closes the connection. Calls made afterwards throw ``HTTP2ClientError/shutdown``.
    public func shutdown() async {
        let previous = pool.withLock { pool in
            defer { pool.state = .shutdown }
            return pool.state
        }
        switch previous {
        case .connected(let connection):
            logger.debug("shutting down HTTP/2 client")
            try? await connection.channel.close().get()
        case .connecting(_, let future, let task):
            task.cancel()
            _ = try? await future.get()
        case .idle, .shutdown:
            break
        }
    }

    var isShutdown: Bool {
        pool.withLock { pool in
            if case .shutdown = pool.state { return true }
            return false
        }
    }
}
