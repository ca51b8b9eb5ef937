import ArgumentParser
import Foundation
import Logging
import SecurePushStack
import ServiceCore
import ServiceLifecycle

/// `securepush up`: all three services in one process on embedded SQLite.
struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Start auth, notification-store and push-dispatch in one process on embedded SQLite.",
        discussion: """
            Listens on the default ports (8081 auth, 8082 notification-store, 8083 push-dispatch; override with \
            SECUREPUSH_AUTH_PORT, SECUREPUSH_STORE_PORT, SECUREPUSH_DISPATCH_PORT). Honours every SECUREPUSH_* variable \
            documented in README.md. When SECUREPUSH_BOOTSTRAP_CLIENT_ID/SECRET are not set, a development backend client \
            'demo-backend' is created and its secret kept in <data-dir>/backend-client.json for `securepush send`.
            """
    )

    @Option(help: "Directory for the SQLite databases and local secrets.")
    var dataDir: String = "./.securepush"

    @Option(help: "Address to bind (env SECUREPUSH_HOST; default 127.0.0.1).")
    var host: String?

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["SECUREPUSH_DATA_DIR"] = dataDir
        if let host { environment["SECUREPUSH_HOST"] = host }
        let isProduction = environment["SECUREPUSH_ENV"]?.lowercased() == "production"

        var backendNote =
            "backend client: from SECUREPUSH_BOOTSTRAP_CLIENT_ID (\(environment["SECUREPUSH_BOOTSTRAP_CLIENT_ID"] ?? ""))"
        if (environment["SECUREPUSH_BOOTSTRAP_CLIENT_ID"] ?? "").isEmpty {
            guard !isProduction else {
                throw CLIError(
                    "SECUREPUSH_ENV=production: set SECUREPUSH_BOOTSTRAP_CLIENT_ID and SECUREPUSH_BOOTSTRAP_CLIENT_SECRET"
                )
            }
            let path = (dataDir as NSString).appendingPathComponent("backend-client.json")
            let client =
                try SecretFile.read(BackendClientFile.self, from: path)
                ?? BackendClientFile(clientId: "demo-backend", clientSecret: randomSecret())
            try SecretFile.write(client, to: path)
            environment["SECUREPUSH_BOOTSTRAP_CLIENT_ID"] = client.clientId
            environment["SECUREPUSH_BOOTSTRAP_CLIENT_SECRET"] = client.clientSecret
            backendNote = "backend client: '\(client.clientId)' (secret in \(path); `securepush send` uses it)"
        }
        if (environment["SECUREPUSH_DISPATCH_CLIENT_ID"] ?? "").isEmpty {
            // push-dispatch and auth share this process: a fresh secret each start is enough.
            environment["SECUREPUSH_DISPATCH_CLIENT_ID"] = "push-dispatch"
            environment["SECUREPUSH_DISPATCH_CLIENT_SECRET"] = randomSecret()
        }

        var logger = Logger(label: "securepush")
        logger.logLevel =
            environment["SECUREPUSH_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .notice
        // SIGINT/SIGTERM trigger a graceful shutdown: push-dispatch, then notification-store, then auth, within
        // SECUREPUSH_SHUTDOWN_TIMEOUT whatever clients do.
        let shutdownTimeout = try ServiceEnvironment(environment).seconds(
            "SECUREPUSH_SHUTDOWN_TIMEOUT", default: 10, in: 1...600)
        let stack = StackService(environment: environment, dataDir: dataDir, backendNote: backendNote, logger: logger)
        try await ServiceRunner.run(.init(services: [stack], shutdownTimeout: shutdownTimeout), logger: logger)
    }
}

/// Runs the stack until graceful shutdown.
private struct StackService: Service {
    let environment: [String: String]
    let dataDir: String
    let backendNote: String
    let logger: Logger

    func run() async throws {
        let stack = try await LocalStack.start(environment: environment, logger: logger)
        emit("SecurePush is up (data in \(dataDir)):")
        emit("  auth                \(stack.authURL)")
        emit("  notification-store  \(stack.storeURL)")
        emit("  push-dispatch       \(stack.dispatchURL)")
        emit("  \(backendNote)")
        emit("Press Ctrl-C to stop.")
        try? await gracefulShutdown()
        emit("Stopping…")
        await stack.stop()
    }
}

/// A 256-bit random secret, base64url.
func randomSecret() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    return Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
}
