import JSONRPC
import Logging
import ServiceLifecycle
import Tracing

/// What a service's composition root (`AuthComponents`, `StoreComponents`, `DispatchComponents`) hands the server:
/// its methods, its readiness checks, its background services and any routes of its own.
public protocol RPCServiceComponents: Sendable {
    /// The service's JSON-RPC methods.
    var dispatcher: RPCDispatcher { get }
    /// Background services (workers, purgers) the application runs and stops with itself.
    var services: [any Service] { get }
    /// Readiness checks, run on every `GET /health`; the service is ready when all say `"ok"`.
    func health() async -> [String: String]
    /// Routes of the service's own, asked in order after the built-in ones (none by default).
    var routes: [RPCServerRoute] { get }
    /// Runs on graceful shutdown as the listener sends GOAWAY, to end what would otherwise hold connections open
    /// until the shutdown timeout (nothing by default).
    func beforeShutdown() async
    /// Browser origins allowed beside `SECUREPUSH_CORS_ORIGINS`, decided per request (an `Origin` value, lowercased);
    /// `nil` (the default): none.
    var moreCORSOrigins: (@Sendable (String) -> Bool)? { get }
}

extension RPCServiceComponents {
    public var routes: [RPCServerRoute] { [] }
    public var moreCORSOrigins: (@Sendable (String) -> Bool)? { nil }
    public func beforeShutdown() async {}
}

extension RPCServerBuilder {
    /// The application serving `components`, as ``buildApplication(serviceName:dispatcher:configuration:health:services:logger:metrics:tracer:routes:moreCORSOrigins:beforeShutdown:onServerRunning:)``.
    public static func buildApplication(
        serviceName: String,
        components: some RPCServiceComponents,
        configuration: RPCServerConfiguration,
        logger: Logger,
        metrics: ServiceMetrics,
        tracer: (any Tracer)?,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> RPCCoreApplication {
        try buildApplication(
            serviceName: serviceName, dispatcher: components.dispatcher, configuration: configuration,
            health: { await components.health() }, services: components.services, logger: logger, metrics: metrics,
            tracer: tracer, routes: components.routes, moreCORSOrigins: components.moreCORSOrigins,
            beforeShutdown: { await components.beforeShutdown() },
            onServerRunning: onServerRunning)
    }
}
