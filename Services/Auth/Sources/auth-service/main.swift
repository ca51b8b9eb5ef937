import AuthService
import ServiceCore

// auth-service: the auth JSON-RPC service on its own, configured by SECUREPUSH_* variables (see README.md).
await ServiceRunner.main(name: "auth-service", label: "securepush.auth", service: "auth") { logger, tracing in
    let configuration = try AuthConfiguration(environment: ServiceEnvironment())
    let database = try ServiceDatabase.open(configuration, schema: AuthMigrations.schema, logger: logger)
    // The database first, so that it stops last; auth is built once it runs (it reads its signing keys from it).
    return ServiceRunner.Plan(
        services: database.services + [
            DeferredService {
                try await buildAuthApplication(
                    configuration: configuration, logger: logger, database: database, tracer: tracing.tracer)
            }
        ],
        shutdownTimeout: configuration.server.shutdownTimeout)
}
