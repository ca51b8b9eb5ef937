import AuthService
import RPCServer
import ServiceCore

// auth-service: the auth JSON-RPC service on its own, configured by SECUREPUSH_* variables (see docs/configuration.md).
await ServiceRunner.main(name: "auth-service", label: "securepush.auth", service: "auth") { logger, tracing in
    let configuration = try AuthConfiguration(environment: ServiceEnvironment())
    // One set of metrics for the database's pool and the service (none with SECUREPUSH_METRICS=off).
    let metrics = ServiceMetrics.serving(configuration.server)
    let database = try ServiceDatabase.open(
        configuration, schema: AuthMigrations.schema, logger: logger, metrics: metrics.factory)
    // The database first, so that it stops last; auth is built once it runs (it reads its signing keys from it).
    return ServiceRunner.Plan(
        services: database.services + [
            DeferredService {
                try await buildAuthApplication(
                    configuration: configuration, logger: logger, database: database, metrics: metrics,
                    tracer: tracing.tracer)
            }
        ],
        shutdownTimeout: configuration.server.shutdownTimeout)
}
