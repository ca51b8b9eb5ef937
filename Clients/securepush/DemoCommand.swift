import ArgumentParser
import AuthService
import Foundation
import Logging
import SecurePushClient
import SecurePushStack

/// `securepush demo`: the whole story, step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the secure push story end to end and print each step.",
        discussion: """
            By default starts its own stack in this process (ephemeral ports, a temporary data directory). With \
            --against-running it uses the stack at the given URLs and a backend client (see `send`).
            """
    )

    @Flag(help: "use a running stack instead of starting one") var againstRunning = false
    @OptionGroup var client: BackendClientOptions
    @OptionGroup var endpoints: EndpointOptions

    func run() async throws {
        let logger = cliLogger()
        let step: @Sendable (String) -> Void = { line in emit(line) }
        if againstRunning {
            let (id, secret, source) = try client.resolve()
            try await explainingFailures(FailureContext(endpoints.endpoints, role: .backend(source: source))) {
                try await SecurePushDemo(endpoints: endpoints.endpoints, clientID: id, clientSecret: secret).run(
                    logger: logger, step: step)
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
                    try await SecurePushDemo(endpoints: endpoints, clientID: "demo-backend", clientSecret: secret).run(
                        logger: logger, step: step)
                }
            } catch {
                await stack.stop()
                throw error
            }
            await stack.stop()
        }
        print("demo complete: the payload reached only its recipient, and only its id crossed the push channel.")
    }
}
