import HTTP2Core
import Logging
import NIOCore
import NIOSSL

extension HTTP2Connection {
    /// Opens a connection: TCP, then TLS with ALPN `h2` or cleartext HTTP/2 with prior knowledge.
    static func connect(
        to endpoint: HTTP2Endpoint,
        sslContext: NIOSSLContext?,
        connectTimeout: Duration,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger
    ) async throws -> HTTP2Connection {
        let state = HTTP2ConnectionState()
        var configuration = HTTP2ClientSessionConfiguration()
        // nghttp2 itself closes a connection that got GOAWAY once its last stream is done.
        configuration.onGoAway = { lastStreamID in state.receivedGoAway(lastStreamID: lastStreamID) }
        configuration.onClose = { state.markClosed() }
        let tls = sslContext.map {
            HTTP2ClientConnection.TLS(context: $0, serverHostname: endpoint.hostIsIPAddress ? nil : endpoint.host)
        }
        do {
            let core = try await HTTP2ClientConnection.connect(
                host: endpoint.host, port: endpoint.port, tls: tls, connectTimeout: connectTimeout,
                configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger)
            return HTTP2Connection(core: core, state: state, logger: logger)
        } catch let error as HTTP2ClientConnectError {
            switch error.kind {
            case .connect: throw HTTP2ClientError(.connectFailed, "\(endpoint.authority): \(error.detail)")
            case .tls: throw HTTP2ClientError(.tlsFailure, "\(endpoint.authority): \(error.detail)")
            // The peer accepted the connection but did not speak HTTP/2 (no SETTINGS): no usable connection.
            case .http2: throw HTTP2ClientError(.connectFailed, "\(endpoint.authority): \(error.detail)")
            }
        }
    }
}
