import Foundation
import Logging
import RPCServer
import ServiceCore
import Tracing

/// Builds the auth service: every dependency is created here and passed down.
///
/// Serves `POST /rpc` (the `auth.*` methods) and `GET /health` (check `database`), and purges expired refresh
/// tokens in the background; `GET /metrics` serves `metrics` (`nil`: a registry of its own, or nothing when
/// `configuration.server.metricsEnabled` is false, `SECUREPUSH_METRICS=off`); `tracer` traces every call (`nil`:
/// tracing off).
/// Throws `ConfigurationError` when the configuration must not start.
/// - Parameter database: auth's database, running (``ServiceDatabase/services`` run first); `nil` opens the SQLite
///   database `configuration` names (a PostgreSQL one must be given, running: `auth-service` runs it first).
public func buildAuthApplication(
    configuration: AuthConfiguration,
    logger: Logger,
    database: ServiceDatabase? = nil,
    metrics: ServiceMetrics? = nil,
    tracer: (any Tracer)? = nil,
    erasurePeers: (any ErasurePeers)? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> RPCCoreApplication {
    let metrics = metrics ?? .serving(configuration.server)
    guard database != nil || configuration.postgresURL == nil else {
        throw ConfigurationError("auth on PostgreSQL (SECUREPUSH_DATABASE_URL) needs its database running first")
    }
    let components = try await AuthComponents.make(
        configuration: configuration,
        database: try database
            ?? ServiceDatabase.open(
                configuration, schema: AuthMigrations.schema, logger: logger, metrics: metrics.factory),
        logger: logger, metrics: metrics.factory, erasurePeers: erasurePeers)
    return try RPCServerBuilder.buildApplication(
        serviceName: "auth", components: components, configuration: configuration.server, logger: logger,
        metrics: metrics, tracer: tracer, onServerRunning: onServerRunning)
}
