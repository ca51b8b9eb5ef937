import Logging
import RPCServer
import ServiceCore
import Tracing

/// push-dispatch wired once, for `dispatch-service` and `securepush up` alike: its database and its clients of auth
/// (`SECUREPUSH_AUTH_URL`) and the store (`SECUREPUSH_STORE_URL`) first, then the application with the push
/// providers the environment configures.
public enum DispatchPlan: ServicePlanning {
    public static func make(
        environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws -> ServiceRunner.Plan {
        let configuration = try DispatchConfiguration(environment: environment)
        let auth = try PeerClient.auth(environment: environment, logger: logger, tracer: tracer)
        let store = try PeerClient.store(environment: environment, logger: logger, tracer: tracer)
        let metrics = ServiceMetrics.serving(
            configuration.server, durationHistogramBuckets: DispatchMetrics.durationHistogramBuckets)
        // Before the database: a half-configured provider refuses to start with nothing written.
        let providers = try await PushProviders.remoteProviders(environment: environment, logger: logger)
        let database: ServiceDatabase
        do {
            database = try ServiceDatabase.open(
                configuration, schema: DispatchMigrations.schema, logger: logger, metrics: metrics.factory)
        } catch {
            for provider in providers { await provider.shutdown() }
            throw error
        }
        return ServiceRunner.Plan(
            resources: database.services + [auth, store],
            application: {
                try await buildDispatchApplication(
                    configuration: configuration, auth: auth.rpc, store: store.rpc, database: database,
                    providers: providers,
                    appProviders: PushProviders.appProviderFactory(environment: environment, logger: logger),
                    logger: logger, metrics: metrics, tracer: tracer,
                    onServerRunning: onServerRunning)
            },
            shutdownTimeout: configuration.server.shutdownTimeout)
    }
}
