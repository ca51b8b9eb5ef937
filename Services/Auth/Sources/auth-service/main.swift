import AuthService
import ServiceCore

// auth-service: the auth JSON-RPC service on its own, configured by SECUREPUSH_* variables (see docs/configuration.md).
await ServiceRunner.main(
    name: "auth-service", label: "securepush.auth", service: "auth", trail: (AuthMigrations.schema, "auth.sqlite")
) {
    environment, logger, tracing in
    try await AuthPlan.make(environment: environment, logger: logger, tracer: tracing.tracer)
}
