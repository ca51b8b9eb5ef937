import Foundation
import Logging
import ServiceCore
import StoreService

// The notification store on its own: configuration from SECUREPUSH_* variables, auth reached over HTTP/2.
let environment = ServiceEnvironment()
var logger = Logger(label: "notification-store")
logger.logLevel = environment.string("SECUREPUSH_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info
do {
    let configuration = try StoreConfiguration(environment: environment)
    let auth = try makePeerClient(
        url: environment.string("SECUREPUSH_AUTH_URL") ?? "http://127.0.0.1:8081",
        peerName: "auth",
        caFile: environment.peerCAFile,
        logger: logger
    )
    let app = try await buildStoreApplication(configuration: configuration, auth: auth, logger: logger) {
        [logger] port in
        logger.info("store.listening", metadata: ["server.port": "\(port)"])
    }
    try await app.runService()
} catch let error as ConfigurationError {
    logger.critical("store.configuration.invalid", metadata: ["error": "\(error)"])
    exit(1)
}
