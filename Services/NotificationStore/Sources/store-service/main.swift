import ServiceCore
import StoreService

// The notification store on its own: configuration from SECUREPUSH_* variables, auth reached over HTTP/2.
await ServiceRunner.main(name: "store-service", label: "notification-store", service: "notification-store") {
    logger, tracing in
    let environment = ServiceEnvironment()
    let configuration = try StoreConfiguration(environment: environment)
    let auth = try makePeerClient(
        url: try environment.peerURL("SECUREPUSH_AUTH_URL", default: "http://127.0.0.1:8081"),
        peerName: "auth",
        caFile: environment.peerCAFile,
        logger: logger,
        tracer: tracing.tracer
    )
    let app = try await buildStoreApplication(
        configuration: configuration, auth: auth, logger: logger, tracer: tracing.tracer
    ) { [logger] port in
        logger.info("store.listening", metadata: ["server.port": "\(port)"])
    }
    return ServiceRunner.Plan(services: [app], shutdownTimeout: configuration.server.shutdownTimeout)
}
