import Logging
import RPCServer
import ServiceCore
import Tracing

/// auth wired once, for `auth-service` and `securepush up` alike: its database and its clients of push-dispatch and the
/// store (`SECUREPUSH_DISPATCH_URL`, `SECUREPUSH_STORE_URL`, made at the first `users.delete`) first, then the
/// application, built once the database runs (it chooses its signing key and provisions clients there).
public enum AuthPlan: ServicePlanning {
    public static func make(
        environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws -> ServiceRunner.Plan {
        try await make(
            environment: environment, peers: nil, logger: logger, tracer: tracer, onServerRunning: onServerRunning)
    }

    /// - Parameter peers: where the store and push-dispatch listen, when they start after auth (`securepush up`):
    ///   asked at the first `users.delete`; the environment's URLs otherwise.
    public static func make(
        environment: ServiceEnvironment, peers: PeerAddresses?, logger: Logger, tracer: (any Tracer)?,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws -> ServiceRunner.Plan {
        let configuration = try AuthConfiguration(environment: environment)
        // Checked now (production refuses a cleartext peer elsewhere), used when first needed.
        let dispatchURL = try environment.peerURL(SettingCatalog.dispatchURL)
        let storeURL = try environment.peerURL(SettingCatalog.storeURL)
        let dispatch = LazyPeerClient(
            peerName: "push-dispatch", url: { peers?.url("push-dispatch") ?? dispatchURL },
            caFile: environment.peerCAFile, logger: logger, tracer: tracer)
        let store = LazyPeerClient(
            peerName: "notification-store", url: { peers?.url("notification-store") ?? storeURL },
            caFile: environment.peerCAFile, logger: logger, tracer: tracer)
        // One set of metrics for the database's pool and the service (none with SECUREPUSH_METRICS=off).
        let metrics = ServiceMetrics.serving(configuration.server)
        let database = try ServiceDatabase.open(
            configuration, schema: AuthMigrations.schema, logger: logger, metrics: metrics.factory)
        return ServiceRunner.Plan(
            resources: database.services + [dispatch, store],
            application: {
                try await buildAuthApplication(
                    configuration: configuration, logger: logger, database: database, metrics: metrics,
                    tracer: tracer, erasurePeers: RPCErasurePeers(dispatch: dispatch.rpc, store: store.rpc),
                    onServerRunning: onServerRunning)
            },
            shutdownTimeout: configuration.server.shutdownTimeout)
    }
}
