import HTTP2Client
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import TestSupport

/// How a test server speaks.
enum ServerMode: String, CustomStringConvertible, Sendable {
    /// HTTP/2 with prior knowledge, no TLS.
    case cleartext
    /// TLS with ALPN offering h2 and http/1.1.
    case tls
    /// TLS offering only http/1.1 through ALPN: an HTTP/2 client must refuse it.
    case http1OverTLS

    /// The modes a production peer uses.
    static let http2Modes: [ServerMode] = [.cleartext, .tls]

    var description: String { rawValue }
    var usesTLS: Bool { self != .cleartext }
}

/// A running Hummingbird server on 127.0.0.1.
struct TestServer: Sendable {
    let mode: ServerMode
    let port: Int
    let connections: ConnectionLog
    let certificates: TestCertificates?
    fileprivate let serviceGroup: ServiceGroup

    /// `http://127.0.0.1:<port>` or `https://…`, with `host` in place of the address when given.
    func baseURL(host: String = "127.0.0.1") -> String {
        "\(mode.usesTLS ? "https" : "http")://\(host):\(port)"
    }

    /// A client for this server trusting its CA.
    func makeClient(host: String = "127.0.0.1", configuration: HTTP2ClientConfiguration = .init()) throws -> HTTP2Client
    {
        var configuration = configuration
        if configuration.trustRootsPEMFile == nil {
            configuration.trustRootsPEMFile = certificates?.caCertificatePath
        }
        return try HTTP2Client(baseURL: baseURL(host: host), configuration: configuration, logger: .quiet)
    }

    /// Starts a graceful shutdown (GOAWAY to every connection) without waiting for it.
    func stop() async {
        await serviceGroup.triggerGracefulShutdown()
    }
}

/// Runs a Hummingbird server for the duration of `body`, then shuts it down gracefully and waits for it.
///
/// - Parameters:
///   - port: 0 for an ephemeral port, or a port to reuse (restart tests).
///   - certificates: TLS identity; when `nil`, TLS modes get a fresh one, deleted when the server stops.
///   - firstConnectionIdleTimeout: when set, the server sends GOAWAY to its first connection once that idles
///     this long, then closes it. Later connections never idle out, so a follow-up request cannot race one.
///   - prepareConnection: adds handlers in front of the server pipeline of connection number `n`.
func withTestServer<T>(
    _ mode: ServerMode,
    port: Int = 0,
    certificates: TestCertificates? = nil,
    firstConnectionIdleTimeout: Duration? = nil,
    prepareConnection: @escaping @Sendable (any Channel, Int) throws -> Void = { _, _ in },
    router: Router<BasicRequestContext>,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let generatedCertificates = mode.usesTLS && certificates == nil ? try TestCertificates.make() : nil
    defer { generatedCertificates?.remove() }
    let certificates = certificates ?? generatedCertificates
    let connections = ConnectionLog()
    let http2Configuration = HTTP2ChannelConfiguration()
    let firstConnectionConfiguration = firstConnectionIdleTimeout.map { HTTP2ChannelConfiguration(idleTimeout: $0) }
    let builder: HTTPServerBuilder
    switch mode {
    case .cleartext:
        builder = HTTPServerBuilder { responder in
            ObservedChildChannel(
                base: HTTP2Channel(responder: responder, configuration: http2Configuration),
                firstConnectionBase: firstConnectionConfiguration.map {
                    HTTP2Channel(responder: responder, configuration: $0)
                },
                log: connections,
                prepare: prepareConnection
            )
        }
    case .tls:
        let tlsConfiguration = try certificates!.makeServerTLSConfiguration()
        builder = HTTPServerBuilder { responder in
            ObservedChildChannel(
                base: try HTTP2UpgradeChannel(
                    tlsConfiguration: tlsConfiguration,
                    configuration: http2Configuration,
                    responder: responder
                ),
                firstConnectionBase: try firstConnectionConfiguration.map {
                    try HTTP2UpgradeChannel(tlsConfiguration: tlsConfiguration, configuration: $0, responder: responder)
                },
                log: connections,
                prepare: prepareConnection
            )
        }
    case .http1OverTLS:
        var tlsConfiguration = try certificates!.makeServerTLSConfiguration()
        tlsConfiguration.applicationProtocols = ["http/1.1"]
        let sslContext = try NIOSSLContext(configuration: tlsConfiguration)
        builder = HTTPServerBuilder { responder in
            ObservedChildChannel(base: HTTP1Channel(responder: responder), log: connections) { channel, index in
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                try prepareConnection(channel, index)
            }
        }
    }

    return try await withRunningServer(router: router, server: builder, port: port) { boundPort, serviceGroup in
        try await body(
            TestServer(
                mode: mode,
                port: boundPort,
                connections: connections,
                certificates: certificates,
                serviceGroup: serviceGroup
            ))
    }
}
