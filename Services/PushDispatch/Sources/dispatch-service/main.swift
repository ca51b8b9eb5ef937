import DispatchService
import Foundation
import Logging
import ServiceCore

let environment = ServiceEnvironment()
let logger = {
    var logger = Logger(label: "push-dispatch")
    logger.logLevel = environment.string("SECUREPUSH_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info
    return logger
}()
do {
    let configuration = try DispatchConfiguration(environment: environment)
    let auth = try makePeerClient(
        url: environment.string("SECUREPUSH_AUTH_URL") ?? "http://127.0.0.1:8081",
        peerName: "auth",
        caFile: environment.peerCAFile,
        logger: logger
    )
    let store = try makePeerClient(
        url: environment.string("SECUREPUSH_STORE_URL") ?? "http://127.0.0.1:8082",
        peerName: "notification-store",
        caFile: environment.peerCAFile,
        logger: logger
    )
    let providers = try await PushProviders.remoteProviders(environment: environment, logger: logger)
    let app = try await buildDispatchApplication(
        configuration: configuration, auth: auth, store: store, providers: providers, logger: logger
    ) { [logger] port in
        logger.info("dispatch.listening", metadata: ["server.port": "\(port)"])
    }
    try await app.runService()
} catch let error as ConfigurationError {
    logger.critical("dispatch.configuration.invalid", metadata: ["error": "\(error)"])
    exit(1)
}
