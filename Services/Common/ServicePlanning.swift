import Logging
import Tracing

/// How a service is wired, once: the one function its executable (through ``ServiceRunner/main(name:label:service:environment:build:)``)
/// and `securepush up` both run. `AuthPlan`, `StorePlan` and `DispatchPlan` conform.
public protocol ServicePlanning {
    /// Reads the service's configuration from `environment` and plans its process: its resources (its database, the
    /// clients of its peers), then its application, built when the group starts it (``ServiceRunner/Plan``).
    /// - Parameters:
    ///   - logger: the service's logger.
    ///   - tracer: traces every call the service serves and makes (`nil`: tracing off).
    ///   - onServerRunning: called with the bound port once listening.
    /// - Throws: `ConfigurationError` when the configuration must not start.
    static func make(
        environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws -> ServiceRunner.Plan
}

extension ServicePlanning {
    /// ``make(environment:logger:tracer:onServerRunning:)`` with nothing to call once listening.
    public static func make(environment: ServiceEnvironment, logger: Logger, tracer: (any Tracer)?) async throws
        -> ServiceRunner.Plan
    {
        try await make(environment: environment, logger: logger, tracer: tracer, onServerRunning: { _ in })
    }
}
