import HummingbirdCore
import HummingbirdHTTP2
import NIOCore
import NIOSSL

extension RPCServerBuilder {
    /// The HTTP server: cleartext HTTP/2 with prior knowledge, or TLS (1.2 at least) with ALPN `h2` and `http/1.1`;
    /// every connection guarded by the configuration's handshake, idle and shutdown timeouts (``ConnectionGuard``).
    static func makeServer(configuration: RPCServerConfiguration) throws -> HTTPServerBuilder {
        let timeouts = ConnectionGuard.Timeouts(
            handshake: TimeAmount(configuration.handshakeTimeout),
            idle: TimeAmount(configuration.idleTimeout),
            drain: TimeAmount(configuration.shutdownTimeout)
        )
        // After the second GOAWAY, streams still open are cut at the shutdown timeout (the guard does the same for
        // connections whose client never answers the first one).
        let http2 = HTTP2ChannelConfiguration(
            gracefulCloseTimeout: configuration.shutdownTimeout,
            streamConfiguration: .init(additionalChannelHandlers: [RequestReporter()]))
        guard let files = configuration.tls else {
            return HTTPServerBuilder { responder in
                GuardedServerChildChannel(
                    base: HTTP2Channel(responder: responder, configuration: http2),
                    timeouts: timeouts)
            }
        }
        let tls = try makeTLSConfiguration(files)
        return HTTPServerBuilder { responder in
            GuardedServerChildChannel(
                base: try HTTP2UpgradeChannel(
                    tlsConfiguration: tls, configuration: http2, responder: responder),
                timeouts: timeouts)
        }
    }

    /// Loads a PEM certificate chain and key into a server TLS configuration: TLS 1.2 or later (ALPN is set by
    /// Hummingbird).
    public static func makeTLSConfiguration(_ files: RPCServerConfiguration.TLSFiles) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(files.certificateChainPath)
        let key = try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
