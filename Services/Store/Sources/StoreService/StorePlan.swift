import Logging
import RPCServer
import ServiceCore
import Tracing

/// notification-store wired once, for `store-service` and `securepush up` alike: its database and its client of auth
/// (`SECUREPUSH_AUTH_URL`) first, then the application.
public enum StorePlan: ServicePlanning {
    public static func make(
        environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws -> ServiceRunner.Plan {
        let configuration = try StoreConfiguration(environment: environment)
        let auth = try PeerClient.auth(environment: environment, logger: logger, tracer: tracer)
        // Before the database: a store key file that cannot be read refuses to start with nothing written.
        let sealer = try configuration.storeKeys.makeSealer(logger: logger, wrapping: configuration.storeKeyWrapping)
        let metrics = ServiceMetrics.serving(configuration.server)
        let database = try ServiceDatabase.open(
            configuration, schema: StoreMigrations.schema, logger: logger, metrics: metrics.factory)
        return ServiceRunner.Plan(
            resources: database.services + [auth],
            application: {
                try await buildStoreApplication(
                    configuration: configuration, auth: auth.rpc, database: database, sealer: sealer, logger: logger,
                    metrics: metrics, tracer: tracer, onServerRunning: onServerRunning)
            },
            shutdownTimeout: configuration.server.shutdownTimeout)
    }
}
