import ArgumentParser
import AuthService
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
            documented in docs/configuration.md. When SECUREPUSH_BOOTSTRAP_CLIENT_ID/SECRET are not set, a development backend client \
            'demo-backend' is created and its secret kept in <data-dir>/backend-client.json for `securepush send`. \
            Payloads are encrypted at rest under SECUREPUSH_STORE_KEY_FILE, by default <data-dir>/store-keys \
            (generated on first start; required in production). Nothing is written before every port is known to \
            be free.
            """
    )

    @Option(help: "Directory for the SQLite databases and local secrets (created 0700).")
    var dataDir: String = "./.securepush"

    @Option(help: "Address to bind (env SECUREPUSH_HOST; default 127.0.0.1).")
    var host: String?

    func run() async throws {
        #if canImport(Glibc)
            // A crash of the three services must not keep their ports for minutes (SWIFT_BACKTRACE, read at start).
            CrashBacktrace.configure()
        #endif
        var environment = ProcessInfo.processInfo.environment
        environment["SECUREPUSH_DATA_DIR"] = dataDir
        if let host { environment["SECUREPUSH_HOST"] = host }
        let isProduction = environment["SECUREPUSH_ENV"]?.lowercased() == "production"

        var backendNote =
            "backend client: from SECUREPUSH_BOOTSTRAP_CLIENT_ID (\(environment["SECUREPUSH_BOOTSTRAP_CLIENT_ID"] ?? ""))"
        // Written only once the stack is up, so a failed start leaves the disk as it was.
        var pendingClientFile: (BackendClientFile, String)?
        if (environment["SECUREPUSH_BOOTSTRAP_CLIENT_ID"] ?? "").isEmpty {
            guard !isProduction else {
                throw CLIError(
                    "SECUREPUSH_ENV=production needs a real backend client",
                    hint: "set SECUREPUSH_BOOTSTRAP_CLIENT_ID and SECUREPUSH_BOOTSTRAP_CLIENT_SECRET",
                    exitCode: .startFailed)
            }
            let path = (dataDir as NSString).appendingPathComponent("backend-client.json")
            let saved: BackendClientFile?
            do {
                saved = try SecretFile.read(BackendClientFile.self, from: path)
            } catch {
                throw CLIError(
                    "cannot read \(path)", hint: "remove it: `securepush up` writes a new development client",
                    exitCode: .startFailed, detail: "\(error)")
            }
            let client = saved ?? BackendClientFile(clientId: "demo-backend", clientSecret: OpaqueToken.generate())
            if saved == nil { pendingClientFile = (client, path) }
            environment["SECUREPUSH_BOOTSTRAP_CLIENT_ID"] = client.clientId
            environment["SECUREPUSH_BOOTSTRAP_CLIENT_SECRET"] = client.clientSecret
            backendNote = "backend client: '\(client.clientId)' (secret in \(path); `securepush send` uses it)"
        }
        if (environment["SECUREPUSH_DISPATCH_CLIENT_ID"] ?? "").isEmpty {
            // push-dispatch and auth share this process: a fresh secret each start is enough.
            environment["SECUREPUSH_DISPATCH_CLIENT_ID"] = "push-dispatch"
            environment["SECUREPUSH_DISPATCH_CLIENT_SECRET"] = OpaqueToken.generate()
        }
        if (environment["SECUREPUSH_STORE_CLIENT_ID"] ?? "").isEmpty {
            // The store asks auth for its audit trail's keys with it.
            environment["SECUREPUSH_STORE_CLIENT_ID"] = "notification-store"
            environment["SECUREPUSH_STORE_CLIENT_SECRET"] = OpaqueToken.generate()
        }

        #if canImport(Glibc)
            // The three services run in this process: malloc set as each service executable sets it.
            MallocTuning.apply(environment: environment)
        #endif
        let logger: Logger
        let stack: LocalStack
        let tracing: ServiceTracing
        do {
            let variables = ServiceEnvironment(environment)
            // One process, one `service.name` (`securepush` unless OTEL_SERVICE_NAME says otherwise).
            tracing = try ServiceTracing(
                serviceName: "securepush", environment: variables,
                logger: try ServiceRunner.makeLogger(label: "securepush.otel", environment: variables))
            logger = try ServiceRunner.makeLogger(
                label: "securepush", environment: variables, defaultLevel: .notice,
                metadataProvider: tracing.metadataProvider)
            try SettingCatalog.checkDeclared(variables, logger: logger)
            stack = try await LocalStack.start(environment: environment, logger: logger, tracer: tracing.tracer)
        } catch {
            throw Self.explainStartFailure(error)
        }
        if let (client, path) = pendingClientFile {
            do {
                try SecretFile.write(client, to: path)
            } catch {
                await stack.stop()
                throw CLIError(
                    "cannot write \(path)", hint: "check that the data directory is writable",
                    exitCode: .startFailed, detail: "\(error)")
            }
        }
        // SIGINT/SIGTERM trigger a graceful shutdown: push-dispatch, then notification-store, then auth, within
        // SECUREPUSH_SHUTDOWN_TIMEOUT whatever clients do.
        let shutdownTimeout = try ServiceEnvironment(environment).seconds(SettingCatalog.shutdownTimeout)
        let service = StackService(stack: stack, dataDir: dataDir, backendNote: backendNote)
        // Tracing first, so it stops last and exports the spans of the shutdown too.
        try await ServiceRunner.run(
            .init(services: tracing.services + [service], shutdownTimeout: shutdownTimeout), logger: logger)
    }

    /// Why the stack did not start, and what to do.
    static func explainStartFailure(_ error: any Error) -> CLIError {
        switch error {
        case let error as PortInUseError:
            let url = FailureContext.setting(of: error.port.service)?.variable ?? "SECUREPUSH_*_URL"
            return CLIError(
                "port \(error.port.port) (\(error.port.service)) is already in use on \(error.host); nothing was started",
                hint: "stop what listens there (another `securepush up`?), or choose another port with "
                    + "\(error.port.variable) (and point the CLI at it with \(url))",
                exitCode: .startFailed, detail: "\(error)")
        case let error as ConfigurationError:
            return CLIError(
                "refused configuration: \(error.description)",
                hint: "fix the SECUREPUSH_* variable it names (docs/configuration.md lists them all)",
                exitCode: .startFailed, detail: "\(error)")
        default:
            return CLIError(
                "the services could not start: \(error)", hint: "run again with --verbose and report what it prints",
                exitCode: .startFailed, detail: String(reflecting: error))
        }
    }
}

/// Serves the started stack until graceful shutdown.
private struct StackService: Service {
    let stack: LocalStack
    let dataDir: String
    let backendNote: String

    func run() async throws {
        emit("SecurePush is up (data in \(dataDir)):")
        emit("  auth                \(stack.authURL)")
        emit("  notification-store  \(stack.storeURL)")
        emit("  push-dispatch       \(stack.dispatchURL)")
        // One space: scripts and docs look for the line `inbox <url>`.
        emit("  inbox \(stack.dispatchURL)/inbox/")
        emit("  \(backendNote)")
        emit("Press Ctrl-C to stop.")
        try? await gracefulShutdown()
        emit("Stopping…")
        await stack.stop()
    }
}
