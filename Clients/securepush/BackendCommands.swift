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

    /// The client's id and secret, and where they came from (for hints).
    func resolve() throws -> (id: String, secret: String, source: String) {
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
        if let clientId, let clientSecret { return (clientId, clientSecret, "--client-id '\(clientId)'") }
        if clientId != nil || clientSecret != nil {
            throw CLIError(
                "--client-id and --client-secret go together", hint: "pass both, or neither to use the defaults")
        }
        if let id = value("SECUREPUSH_CLIENT_ID"), let secret = value("SECUREPUSH_CLIENT_SECRET") {
            return (id, secret, "SECUREPUSH_CLIENT_ID '\(id)'")
        }
        if let id = value("SECUREPUSH_BOOTSTRAP_CLIENT_ID"), let secret = value("SECUREPUSH_BOOTSTRAP_CLIENT_SECRET") {
            return (id, secret, "SECUREPUSH_BOOTSTRAP_CLIENT_ID '\(id)'")
        }
        let path = (dataDir as NSString).appendingPathComponent("backend-client.json")
        let file: BackendClientFile?
        do {
            file = try SecretFile.read(BackendClientFile.self, from: path)
        } catch {
            throw CLIError(
                "cannot read the development backend client in \(path)",
                hint: "remove it and restart `securepush up` to write a new one", detail: "\(error)")
        }
        if let file { return (file.clientId, file.clientSecret, "'\(file.clientId)' from \(path)") }
        throw CLIError(
            "no backend client: none given, and no \(path) (which `securepush up` writes in its data directory)",
            hint: "run this where `securepush up` runs, or pass its data directory with --data-dir; or pass "
                + "--client-id and --client-secret (or set SECUREPUSH_CLIENT_ID and SECUREPUSH_CLIENT_SECRET)")
    }

    /// A backend client on `endpoints`, and the context that explains its failures.
    func makeBackend(_ endpoints: SecurePushEndpoints) throws -> (SecurePushBackend, FailureContext) {
        let (id, secret, source) = try resolve()
        let backend = try SecurePushBackend(
            authURL: endpoints.auth, dispatchURL: endpoints.dispatch, clientID: id, clientSecret: secret,
            configuration: .init(trustRootsPEMFile: endpoints.caFile), logger: cliLogger())
        return (backend, FailureContext(endpoints, role: .backend(source: source)))
    }
}

/// `securepush send`: be the app backend — send a secure notification.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send a secure notification to a user (push.send).")

    @Option(help: "the recipient: a username, or a user id (printed by `register` and `login`)") var to: String
    @Option(help: "the sensitive text; it goes to notification-store, never to the push channel") var message: String
    @Option(help: "lifetime in seconds (default 7 days)") var ttl: Int?
    @Option(help: "sending again with the same key returns the first result") var idempotencyKey: String?
    @Flag(help: "erase every copy after the recipient's first successful fetch") var readOnce = false
    @Flag(help: "target only the recipient's sealed devices; no server-readable copy is kept") var sealedOnly = false
    @OptionGroup var client: BackendClientOptions
    @OptionGroup var endpoints: EndpointOptions

    func run() async throws {
        let (backend, general) = try client.makeBackend(endpoints.endpoints)
        var context = general
        context.notFoundHint = "send to a registered user: their username, or the user id `securepush register` printed"
        context.flags = [
            "payload": "--message", "recipientId": "--to", "ttlSeconds": "--ttl", "idempotencyKey": "--idempotency-key",
        ]
        let result: Push.Send.Result
        do {
            result = try await explainingFailures(context) {
                let recipientId = try await recipientID(backend)
                do {
                    return try await backend.send(
                        .init(
                            recipientId: recipientId, payload: message, ttlSeconds: ttl, idempotencyKey: idempotencyKey,
                            sealedOnly: sealedOnly ? true : nil, readOnce: readOnce ? true : nil)
                    )
                } catch let error as RPCError where error.code == RPCErrorCode.notFound {
                    throw CLIError(
                        "no user has id '\(recipientId)': nothing was sent", hint: context.notFoundHint,
                        detail: "JSON-RPC error \(error.code): \(error.message)")
                }
            }
        } catch {
            await backend.shutdown()
            throw error
        }
        await backend.shutdown()
        print("notification \(result.notificationId)")
        if result.deliveries.isEmpty {
            print(
                "  (the recipient has no registered devices yet: `securepush listen` registers one; the payload waits")
            print("   in the store until it expires)")
        }
        for delivery in result.deliveries {
            print("  device \(delivery.deviceId) [\(delivery.platform)]: \(delivery.status)")
        }
    }
}

extension SendCommand {
    /// `--to` as a user id: a UUID is taken as one (push.send checks it exists), anything else is a username.
    func recipientID(_ backend: SecurePushBackend) async throws -> String {
        if UUID(uuidString: to) != nil { return to.lowercased() }
        do {
            return try await backend.lookupUser(.init(username: to)).userId
        } catch let error as RPCError where error.code == RPCErrorCode.notFound {
            throw CLIError(
                "no user named '\(to)'",
                hint: "check the spelling, or create the account with `securepush register --username \(to)`",
                detail: "JSON-RPC error \(error.code): \(error.message)")
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
        let (backend, general) = try client.makeBackend(endpoints.endpoints)
        var context = general
        context.notFound =
            "no notification \(notificationId) sent by this backend client (expired, or sent by another client)"
        context.notFoundHint = "use an id `securepush send` printed; only the client that sent it may ask"
        let status: Push.Status.Result
        do {
            status = try await explainingFailures(context) { try await backend.status(notificationId: notificationId) }
        } catch {
            await backend.shutdown()
            throw error
        }
        await backend.shutdown()
        print("notification \(status.notificationId)")
        if let traceID = status.traceId { print("  trace \(traceID)") }
        for delivery in status.deliveries {
            let error = delivery.lastError.map { " — \($0)" } ?? ""
            print(
                "  device \(delivery.deviceId) [\(delivery.platform)]: \(delivery.status), \(delivery.attempts) attempt(s)\(error)"
            )
        }
    }
}
