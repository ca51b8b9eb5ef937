import ArgumentParser
import Foundation
import SecurePushClient
import SharedModels

/// Client credentials for backend commands: flags, else SECUREPUSH_CLIENT_ID/SECRET, else SECUREPUSH_BOOTSTRAP_CLIENT_*,
/// else the development client `securepush up` wrote under its data directory.
struct BackendClientOptions: ParsableArguments {
    @Option(help: "backend client id (env SECUREPUSH_CLIENT_ID)") var clientId: String?
    @Option(help: "backend client secret (env SECUREPUSH_CLIENT_SECRET)") var clientSecret: String?
    @Option(help: "data directory of a local `securepush up`, to find its development client") var dataDir: String =
        "./.securepush"

    func resolve() throws -> (id: String, secret: String) {
        let environment = ProcessInfo.processInfo.environment
        // A secret may also come from the file `<NAME>_FILE` names (mounted secrets, as in compose).
        func value(_ name: String) -> String? {
            if let value = environment[name], !value.isEmpty { return value }
            guard let path = environment[name + "_FILE"], !path.isEmpty,
                let text = try? String(contentsOfFile: path, encoding: .utf8)
            else { return nil }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        if let clientId, let clientSecret { return (clientId, clientSecret) }
        if let id = value("SECUREPUSH_CLIENT_ID"), let secret = value("SECUREPUSH_CLIENT_SECRET") {
            return (id, secret)
        }
        if let id = value("SECUREPUSH_BOOTSTRAP_CLIENT_ID"), let secret = value("SECUREPUSH_BOOTSTRAP_CLIENT_SECRET") {
            return (id, secret)
        }
        let path = (dataDir as NSString).appendingPathComponent("backend-client.json")
        if let file = try SecretFile.read(BackendClientFile.self, from: path) {
            return (file.clientId, file.clientSecret)
        }
        throw CLIError("no backend client: pass --client-id and --client-secret, or set SECUREPUSH_CLIENT_ID/SECRET")
    }

    func makeBackend(_ endpoints: SecurePushEndpoints) throws -> SecurePushBackend {
        let (id, secret) = try resolve()
        return try SecurePushBackend(
            authURL: endpoints.auth, dispatchURL: endpoints.dispatch, clientID: id, clientSecret: secret,
            configuration: .init(trustRootsPEMFile: endpoints.caFile), logger: cliLogger())
    }
}

/// `securepush send`: be the app backend — send a secure notification.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send a secure notification to a user (push.send).")

    @Option(help: "the recipient's user id (printed by `register` and `login`)") var to: String
    @Option(help: "the sensitive text; it goes to notification-store, never to the push channel") var message: String
    @Option(help: "lifetime in seconds (default 7 days)") var ttl: Int?
    @Option(help: "sending again with the same key returns the first result") var idempotencyKey: String?
    @OptionGroup var client: BackendClientOptions
    @OptionGroup var endpoints: EndpointOptions

    func run() async throws {
        let backend = try client.makeBackend(endpoints.endpoints)
        let result = try await reportingRPCErrors {
            try await backend.send(
                .init(recipientId: to, payload: message, ttlSeconds: ttl, idempotencyKey: idempotencyKey))
        }
        await backend.shutdown()
        print("notification \(result.notificationId)")
        if result.deliveries.isEmpty {
            print("  (the recipient has no registered devices yet; the payload waits in the store)")
        }
        for delivery in result.deliveries {
            print("  device \(delivery.deviceId) [\(delivery.platform)]: \(delivery.status)")
        }
    }
}

/// `securepush status`: delivery state of a notification this backend sent.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the delivery state of a notification (push.status).")

    @Argument(help: "the notification id printed by `send`") var notificationId: String
    @OptionGroup var client: BackendClientOptions
    @OptionGroup var endpoints: EndpointOptions

    func run() async throws {
        let backend = try client.makeBackend(endpoints.endpoints)
        let status = try await reportingRPCErrors { try await backend.status(notificationId: notificationId) }
        await backend.shutdown()
        print("notification \(status.notificationId)")
        for delivery in status.deliveries {
            let error = delivery.lastError.map { " — \($0)" } ?? ""
            print(
                "  device \(delivery.deviceId) [\(delivery.platform)]: \(delivery.status), \(delivery.attempts) attempt(s)\(error)"
            )
        }
    }
}
