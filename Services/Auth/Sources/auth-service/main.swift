import AuthService
import Foundation
import Logging
import ServiceCore
import ServiceLifecycle

// auth-service: the auth JSON-RPC service on its own, configured by SECUREPUSH_* variables (see README.md).
let environment = ServiceEnvironment()
var logger = Logger(label: "securepush.auth")
let levelName = environment.string("SECUREPUSH_LOG_LEVEL") ?? "info"
guard let level = Logger.Level(rawValue: levelName.lowercased()) else {
    let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(
        Data("auth-service: SECUREPUSH_LOG_LEVEL must be one of \(levels) (got '\(levelName)')\n".utf8))
    exit(1)
}
logger.logLevel = level

do {
    let configuration = try AuthConfiguration(environment: environment)
    let server = AuthServer(configuration: configuration, logger: logger) { _ in }
    try await ServiceGroup(
        configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    ).run()
} catch let error as ConfigurationError {
    FileHandle.standardError.write(Data("auth-service: configuration error: \(error.description)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("auth-service: \(error)\n".utf8))
    exit(1)
}
