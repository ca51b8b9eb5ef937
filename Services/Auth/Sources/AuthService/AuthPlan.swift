import Logging
import RPCServer
import ServiceCore
import Tracing

/// auth wired once, for `auth-service` and `securepush up` alike: its database first, then the application, built once
/// the database runs (it chooses its signing key and provisions clients there).
public enum AuthPlan: ServicePlanning {
    public static func make(
        environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws -> ServiceRunner.Plan {
        let configuration = try AuthConfiguration(environment: environment)
        // One set of metrics for the database's pool and the service (none with SECUREPUSH_METRICS=off).
        let metrics = ServiceMetrics.serving(configuration.server)
        let database = try ServiceDatabase.open(
            configuration, schema: AuthMigrations.schema, logger: logger, metrics: metrics.factory)
        return ServiceRunner.Plan(
            resources: database.services,
            application: {
                try await buildAuthApplication(
                    configuration: configuration, logger: logger, database: database, metrics: metrics,
                    tracer: tracer, onServerRunning: onServerRunning)
            },
            shutdownTimeout: configuration.server.shutdownTimeout)
    }
}
