import DispatchService
import ServiceCore

// push-dispatch on its own: configuration from SECUREPUSH_* variables, auth and the store reached over HTTP/2.
await ServiceRunner.main(
    name: "dispatch-service", label: "securepush.dispatch", service: "push-dispatch",
    trail: (DispatchMigrations.schema, "dispatch.sqlite")
) {
    environment, logger, tracing in
    try await DispatchPlan.make(environment: environment, logger: logger, tracer: tracing.tracer) {
        [logger] port in
        logger.info("dispatch.listening", metadata: ["server.port": "\(port)"])
    }
}
