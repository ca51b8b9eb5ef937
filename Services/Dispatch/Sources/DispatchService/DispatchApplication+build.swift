import Logging
import RPCServer
import ServiceCore
import SharedModels
import Tracing

/// push-dispatch's composition root: opens the database, wires the domain, the token verifier, the direct channel
/// and the background workers, and returns the application (on the HTTP/2 core) serving `POST /rpc`, `GET /health` and
/// `GET /devices/:deviceId/events`.
/// - Parameters:
///   - configuration: where to listen, where the database lives, limits, client credentials.
///   - auth: a client to the auth service (`auth.keys`, `auth.clientToken`); the application starts even while auth is down.
///   - store: a client to the notification store (`store.put`).
///   - database: push-dispatch's database, run by the caller (``ServiceDatabase/services`` before the application);
///     `nil` opens the one `configuration` names and runs it with the application.
///   - providers: the remote push providers (see `PushProviders.remoteProviders(environment:logger:)`), each run by
///     its own `DeliveryWorker`; the direct channel is always there.
///   - appProviders: builds the providers of the apps in the database (`PushProviders.appProviderFactory`); `nil`:
///     with the process environment's connection settings.
///   - logger: the service's logger.
///   - metrics: where metrics are recorded and what `GET /metrics` serves; `nil`: a registry of its own, or nothing
///     when `configuration.server.metricsEnabled` is false (`SECUREPUSH_METRICS=off`).
///   - tracer: traces every call, provider attempt and event written (`nil`: tracing off); give `auth` and `store`
///     clients with the same tracer.
///   - onServerRunning: called with the bound port once listening.
public func buildDispatchApplication(
    configuration: DispatchConfiguration,
    auth: RPCClient,
    store: RPCClient,
    database: ServiceDatabase? = nil,
    providers: [any RemotePushProvider] = [],
    appProviders: AppCatalogLoader.ProviderFactory? = nil,
    logger: Logger,
    metrics: ServiceMetrics? = nil,
    tracer: (any Tracer)? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> RPCCoreApplication {
    let metrics =
        metrics ?? .serving(configuration.server, durationHistogramBuckets: DispatchMetrics.durationHistogramBuckets)
    let components = try DispatchComponents.make(
        configuration: configuration, auth: auth, store: store, database: database, providers: providers,
        appProviders: appProviders, logger: logger,
        metrics: metrics.factory, tracer: tracer)
    return try buildDispatchApplication(
        components: components, configuration: configuration, logger: logger, metrics: metrics,
        onServerRunning: onServerRunning)
}

/// The application around components built beforehand (tests and embedders that also drive the components directly).
public func buildDispatchApplication(
    components: DispatchComponents,
    configuration: DispatchConfiguration,
    logger: Logger,
    metrics: ServiceMetrics = .disabled,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> RPCCoreApplication {
    try RPCServerBuilder.buildApplication(
        serviceName: "push-dispatch", components: components, configuration: configuration.server, logger: logger,
        metrics: metrics, tracer: components.tracer, onServerRunning: onServerRunning)
}
