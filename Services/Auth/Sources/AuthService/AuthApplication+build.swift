import Foundation
import Hummingbird
import Logging
import RPCServer
import ServiceCore
import Tracing

/// Builds the auth service: every dependency is created here and passed down.
///
/// Serves `POST /rpc` (the `auth.*` methods) and `GET /health` (check `database`), and purges expired refresh
/// tokens in the background; `GET /metrics` serves `metrics` (a registry of its own by default); `tracer` traces
/// every call (`nil`: tracing off).
/// Throws `ConfigurationError` when the configuration must not start.
public func buildAuthApplication(
    configuration: AuthConfiguration,
    logger: Logger,
    postgres: PostgresServiceDatabase? = nil,
    metrics: ServiceMetrics = .prometheus(),
    tracer: (any Tracer)? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let components = try await AuthComponents.make(
        configuration: configuration, logger: logger, postgres: postgres, metrics: metrics.factory)
    return try RPCServerBuilder.buildApplication(
        serviceName: "auth",
        dispatcher: components.dispatcher,
        configuration: configuration.server,
        health: { await components.health() },
        services: [components.purger(logger: logger)],
        logger: logger,
        metrics: metrics,
        tracer: tracer,
        onServerRunning: onServerRunning
    )
}
