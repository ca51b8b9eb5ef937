import AuthService
import ServiceCore

// auth-service: the auth JSON-RPC service on its own, configured by SECUREPUSH_* variables (see README.md).
await ServiceRunner.main(name: "auth-service", label: "securepush.auth", service: "auth") { logger, tracing in
    let configuration = try AuthConfiguration(environment: ServiceEnvironment())
    return ServiceRunner.Plan(
        services: [AuthServer(configuration: configuration, logger: logger, tracer: tracing.tracer) { _ in }],
        shutdownTimeout: configuration.server.shutdownTimeout)
}
