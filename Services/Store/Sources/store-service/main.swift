import ServiceCore
import StoreService

// The notification store on its own: configuration from SECUREPUSH_* variables, auth reached over HTTP/2.
await ServiceRunner.main(
    name: "store-service", label: "securepush.store", service: "notification-store",
    trail: (StoreMigrations.schema, "store.sqlite")
) {
    environment, logger, tracing in
    try await StorePlan.make(environment: environment, logger: logger, tracer: tracing.tracer) {
        [logger] port in
        logger.info("store.listening", metadata: ["server.port": "\(port)"])
    }
}
