import DispatchService
import ServiceCore

// push-dispatch on its own: configuration from SECUREPUSH_* variables, auth and the store reached over HTTP/2.
await ServiceRunner.main(name: "dispatch-service", label: "push-dispatch", service: "push-dispatch") {
    logger, tracing in
    let environment = ServiceEnvironment()
    let configuration = try DispatchConfiguration(environment: environment)
    let auth = try makePeerClient(
        url: try environment.peerURL("SECUREPUSH_AUTH_URL", default: "http://127.0.0.1:8081"),
        peerName: "auth",
        caFile: environment.peerCAFile,
        logger: logger,
        tracer: tracing.tracer
    )
    let store = try makePeerClient(
        url: try environment.peerURL("SECUREPUSH_STORE_URL", default: "http://127.0.0.1:8082"),
        peerName: "notification-store",
        caFile: environment.peerCAFile,
        logger: logger,
        tracer: tracing.tracer
    )
    let providers = try await PushProviders.remoteProviders(environment: environment, logger: logger)
    let app = try await buildDispatchApplication(
        configuration: configuration, auth: auth, store: store, providers: providers, logger: logger,
        tracer: tracing.tracer
    ) { [logger] port in
        logger.info("dispatch.listening", metadata: ["server.port": "\(port)"])
    }
    return ServiceRunner.Plan(services: [app], shutdownTimeout: configuration.server.shutdownTimeout)
}
