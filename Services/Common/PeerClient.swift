import HTTP2Client
import Logging
import ServiceLifecycle
import SharedModels
import Tracing

/// A JSON-RPC client for another SecurePush service over one HTTP/2 connection, run as a lifecycle service: listed
/// before the application that calls it, it closes its connection after the application has stopped.
public struct PeerClient: Service {
    /// The typed client.
    public let rpc: RPCClient
    /// The connection under it.
    public let http: HTTP2Client

    /// - Parameters:
    ///   - url: the peer's base URL, `http://` (cleartext HTTP/2) or `https://` (TLS, ALPN h2).
    ///   - peerName: names the peer in `-32050` errors.
    ///   - caFile: a PEM CA to trust for `https` (a private CA); `nil` uses the system trust store.
    ///   - tracer: traces every call (a client span, `traceparent` sent along); `nil` traces nothing.
    public init(url: String, peerName: String, caFile: String?, logger: Logger, tracer: (any Tracer)? = nil) throws {
        var configuration = HTTP2ClientConfiguration()
        configuration.trustRootsPEMFile = caFile
        http = try HTTP2Client(baseURL: url, configuration: configuration, logger: logger)
        rpc = RPCClient(
            transport: HTTP2RPCTransport(client: http, peerName: peerName, tracer: tracer), peerName: peerName)
    }

    /// auth, at ``SettingCatalog/authURL``.
    public static func auth(environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?) throws -> PeerClient
    {
        try PeerClient(
            SettingCatalog.authURL, peerName: "auth", environment: environment, logger: logger, tracer: tracer)
    }

    /// notification-store, at ``SettingCatalog/storeURL``.
    public static func store(environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?) throws
        -> PeerClient
    {
        try PeerClient(
            SettingCatalog.storeURL, peerName: "notification-store", environment: environment, logger: logger,
            tracer: tracer)
    }

    /// push-dispatch, at ``SettingCatalog/dispatchURL``.
    public static func dispatch(environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?) throws
        -> PeerClient
    {
        try PeerClient(
            SettingCatalog.dispatchURL, peerName: "push-dispatch", environment: environment, logger: logger,
            tracer: tracer)
    }

    /// The peer at the URL `setting` names (its default when unset, checked by the production policy), trusting
    /// `SECUREPUSH_CA_FILE`.
    private init(
        _ setting: TextSetting, peerName: String, environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?
    ) throws {
        try self.init(
            url: try environment.peerURL(setting), peerName: peerName,
            caFile: environment.peerCAFile, logger: logger, tracer: tracer)
    }

    /// Waits for graceful shutdown (or cancellation), then closes the connection.
    public func run() async throws {
        try? await gracefulShutdown()
        await http.shutdown()
    }

    /// Closes the connection.
    public func shutdown() async {
        await http.shutdown()
    }
}
