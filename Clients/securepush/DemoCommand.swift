import ArgumentParser
import AuthService
import Foundation
import Logging
import SecurePushClient
import SecurePushStack
import ServiceCore

/// `securepush demo`: the whole story, step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the secure push story end to end and print each step.",
        discussion: """
            By default starts its own stack in this process (ephemeral ports, a temporary data directory). With \
            --against-running it uses the stack at the given URLs and a backend client (see `send`). With \
            --second-app it then creates (or rotates) that app and a backend client bound to it, as `apps create` and \
            `clients create --app` do on the databases (SECUREPUSH_DATABASE_URL, else the data directories), and \
            shows that each app's sends reach only its own devices.
            """
    )

    @Flag(help: "use a running stack instead of starting one") var againstRunning = false
    @Option(help: "also show a second app with this id, e.g. demo-partner (needs the databases)")
    var secondApp: String?
    @Option(help: "with --against-running: auth's data directory (holding auth.sqlite; env SECUREPUSH_DATA_DIR)")
    var authDataDir: String?
    @Option(
        help:
            "with --against-running: push-dispatch's data directory (holding dispatch.sqlite; env SECUREPUSH_DATA_DIR)"
    )
    var dispatchDataDir: String?
    @OptionGroup var client: BackendClientOptions
    @OptionGroup var endpoints: EndpointOptions

    func run() async throws {
        let logger = cliLogger()
        let step: @Sendable (String) -> Void = { line in emit(line) }
        if againstRunning {
            let (id, secret, source) = try client.resolve()
            try await explainingFailures(FailureContext(endpoints.endpoints, role: .backend(source: source))) {
                var demo = SecurePushDemo(endpoints: endpoints.endpoints, clientID: id, clientSecret: secret)
                if let secondApp {
                    demo.secondApp = try await DemoSecondApp(
                        appId: secondApp, dispatchEnvironment: Self.environment(dataDir: dispatchDataDir),
                        authEnvironment: Self.environment(dataDir: authDataDir)
                    ).prepare(logger: logger, step: step)
                }
                try await demo.run(logger: logger, step: step)
            }
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "securepush-demo-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let secret = OpaqueToken.generate()
            var environment = ProcessInfo.processInfo.environment
            environment.merge([
                "SECUREPUSH_DATA_DIR": directory, "SECUREPUSH_HOST": "127.0.0.1",
                "SECUREPUSH_AUTH_PORT": "0", "SECUREPUSH_STORE_PORT": "0", "SECUREPUSH_DISPATCH_PORT": "0",
                "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "demo-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": secret,
                "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
                "SECUREPUSH_DISPATCH_CLIENT_SECRET": OpaqueToken.generate(),
                "SECUREPUSH_STORE_CLIENT_ID": "notification-store",
                "SECUREPUSH_STORE_CLIENT_SECRET": OpaqueToken.generate(),
                "SECUREPUSH_BCRYPT_COST": "10",
            ]) { _, new in new }
            let stack = try await LocalStack.start(environment: environment, logger: logger)
            step(
                "0. started auth \(stack.authURL), notification-store \(stack.storeURL), push-dispatch \(stack.dispatchURL)"
            )
            let endpoints = SecurePushEndpoints(
                auth: stack.authURL, store: stack.storeURL, dispatch: stack.dispatchURL,
                caFile: environment["SECUREPUSH_CA_FILE"])
            do {
                try await explainingFailures(FailureContext(endpoints, role: .backend(source: "the demo's own client")))
                {
                    var demo = SecurePushDemo(endpoints: endpoints, clientID: "demo-backend", clientSecret: secret)
                    if let secondApp {
                        demo.secondApp = try await DemoSecondApp(
                            appId: secondApp, dispatchEnvironment: ServiceEnvironment(environment),
                            authEnvironment: ServiceEnvironment(environment)
                        ).prepare(logger: logger, step: step)
                    }
                    try await demo.run(logger: logger, step: step)
                }
            } catch {
                await stack.stop()
                throw error
            }
            await stack.stop()
        }
        print("demo complete: the payload reached only its recipient, and only its id crossed the push channel.")
        if let secondApp {
            print("demo complete for two apps: 'default' and '\(secondApp)' each reached only their own devices.")
        }
    }

    /// The process's settings, with `SECUREPUSH_DATA_DIR` set to `dataDir` when given.
    private static func environment(dataDir: String?) -> ServiceEnvironment {
        var environment = ServiceEnvironment()
        if let dataDir { environment.values["SECUREPUSH_DATA_DIR"] = dataDir }
        return environment
    }
}
