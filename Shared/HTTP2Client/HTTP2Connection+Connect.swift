import Logging
import NIOCore
import NIOHTTP2
import NIOPosix
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
        let bootstrap = ClientBootstrap(group: eventLoopGroup)
            .connectTimeout(TimeAmount(connectTimeout))
        let handshakeDeadline = NIODeadline.now() + TimeAmount(connectTimeout)

        guard let sslContext else {
            let (channel, multiplexer): (any Channel, Multiplexer)
            do {
                (channel, multiplexer) = try await bootstrap.connect(host: endpoint.host, port: endpoint.port) {
                    channel in
                    channel.eventLoop.makeCompletedFuture {
                        (channel, try configureHTTP2(on: channel, state: state, logger: logger))
                    }
                }
            } catch {
                throw HTTP2ClientError(.connectFailed, "\(endpoint.authority): \(error)")
            }
            logger.debug("opened HTTP/2 connection (prior knowledge)")
            return HTTP2Connection(channel: channel, multiplexer: multiplexer, state: state, logger: logger)
        }

        let serverHostname = endpoint.hostIsIPAddress ? nil : endpoint.host
        let (channel, negotiation): (any Channel, EventLoopFuture<NIONegotiatedHTTPVersion<Void, Multiplexer>>)
        do {
            (channel, negotiation) = try await bootstrap.connect(host: endpoint.host, port: endpoint.port) { channel in
                do {
                    // With no SNI name (IP literal), NIOSSL verifies the certificate against the peer's IP address.
                    let tlsHandler = try NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname)
                    try channel.pipeline.syncOperations.addHandler(tlsHandler)
                    try channel.pipeline.syncOperations.addHandler(HTTP2ConnectionErrorRecorder(state: state))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return channel.configureHTTP2AsyncSecureUpgrade(
                    http1ConnectionInitializer: { channel in channel.eventLoop.makeSucceededVoidFuture() },
                    http2ConnectionInitializer: { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try configureHTTP2(on: channel, state: state, logger: logger)
                        }
                    }
                ).map { negotiation in (channel, negotiation) }
            }
        } catch {
            throw HTTP2ClientError(.connectFailed, "\(endpoint.authority): \(error)")
        }

        let negotiated: NIONegotiatedHTTPVersion<Void, Multiplexer>
        do {
            negotiated = try await negotiation.get(
                deadline: handshakeDeadline,
                timeoutError: HTTP2ClientError(.tlsFailure, "\(endpoint.authority): TLS handshake timed out")
            )
        } catch let error as HTTP2ClientError {
            channel.close(promise: nil)
            throw error
        } catch is CancellationError {
            channel.close(promise: nil)
            throw CancellationError()
        } catch {
            channel.close(promise: nil)
            let reason = state.firstError.map { "\($0)" } ?? "\(error)"
            throw HTTP2ClientError(.tlsFailure, "\(endpoint.authority): \(reason)")
        }
        switch negotiated {
        case .http2(let multiplexer):
            logger.debug("opened HTTP/2 connection (TLS, ALPN h2)")
            return HTTP2Connection(channel: channel, multiplexer: multiplexer, state: state, logger: logger)
        case .http1_1:
            channel.close(promise: nil)
            throw HTTP2ClientError(.tlsFailure, "\(endpoint.authority): the server did not select h2 via ALPN")
        }
    }

    /// Adds the HTTP/2 handler and, after it, the watcher that sees stream-0 frames such as GOAWAY.
    private static func configureHTTP2(
        on channel: any Channel,
        state: HTTP2ConnectionState,
        logger: Logger
    ) throws -> Multiplexer {
        var configuration = NIOHTTP2Handler.Configuration()
        // We never accept server push; the peer must not open streams towards us.
        configuration.connection.initialSettings.append(HTTP2Setting(parameter: .enablePush, value: 0))
        let multiplexer = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
            mode: .client,
            configuration: configuration
        ) { inboundStream in
            inboundStream.close()
        }
        try channel.pipeline.syncOperations.addHandler(HTTP2ConnectionWatcher(state: state, logger: logger))
        return multiplexer
    }
}
