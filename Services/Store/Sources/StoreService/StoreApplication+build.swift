import Logging
import RPCServer
import ServiceCore
import SharedModels
import Tracing

/// The notification store's composition root: opens the database, wires the domain, the token verifier and the
/// background workers, and returns the application (on the HTTP/2 core) serving `POST /rpc` and `GET /health`.
/// - Parameters:
///   - configuration: where to listen, where the database lives, limits.
///   - auth: a client to the auth service (for `auth.keys`); the application starts even while auth is down.
///   - database: the store's database, run by the caller (``ServiceDatabase/services`` before the application);
///     `nil` opens the one `configuration` names and runs it with the application.
///   - sealer: seals payloads at rest; `nil` makes it from `configuration.storeKeys`.
///   - logger: the service's logger.
///   - metrics: where metrics are recorded and what `GET /metrics` serves; `nil`: a registry of its own, or nothing
///     when `configuration.server.metricsEnabled` is false (`SECUREPUSH_METRICS=off`).
///   - tracer: traces every call (`nil`: tracing off); give `auth` a client with the same tracer.
///   - onServerRunning: called with the bound port once listening.
public func buildStoreApplication(
    configuration: StoreConfiguration,
    auth: RPCClient,
    database: ServiceDatabase? = nil,
    sealer: (any PayloadSealer)? = nil,
    logger: Logger,
    metrics: ServiceMetrics? = nil,
    tracer: (any Tracer)? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> RPCCoreApplication {
    let metrics = metrics ?? .serving(configuration.server)
    let components = try StoreComponents.make(
        configuration: configuration, auth: auth, database: database, logger: logger, sealer: sealer,
        metrics: metrics.factory)
    return try RPCServerBuilder.buildApplication(
        serviceName: "notification-store", components: components, configuration: configuration.server,
        logger: logger, metrics: metrics, tracer: tracer, onServerRunning: onServerRunning)
}
