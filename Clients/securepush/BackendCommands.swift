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

    @Option(
        help:
            "the recipient: a username, or a user id (printed by `register` and `login`); repeat it to send to several in one call"
    )
    var to: [String]
    @Option(help: "the sensitive text; it goes to notification-store, never to the push channel") var message: String
    @Option(help: "lifetime in seconds (default 7 days)") var ttl: Int?
    @Option(help: "sending again with the same key returns the first result") var idempotencyKey: String?
    @Flag(help: "erase every copy after the recipient's first successful fetch") var readOnce = false
    @Flag(help: "target only the recipient's sealed devices; no server-readable copy is kept") var sealedOnly = false
    @Option(help: "high or normal: how urgently the providers deliver the id") var priority: String?
    @Option(help: "a newer send with the same id replaces this one while it waits (1-32 of A-Z a-z 0-9 - _)")
    var collapseId: String?
    @Option(help: "when to send, ISO 8601 UTC (e.g. 2026-11-30T08:00:00Z); `securepush cancel ID` withdraws it before")
    var sendAt: String?
    @OptionGroup var client: BackendClientOptions
    @OptionGroup var endpoints: EndpointOptions

    func validate() throws {
        guard !to.isEmpty else { throw ValidationError("give at least one --to") }
        if let sendAt, (try? Date(sendAt, strategy: .iso8601)) == nil {
            throw ValidationError("--send-at must be an ISO 8601 UTC time such as 2026-11-30T08:00:00Z")
        }
    }

    /// The send's options, as `push.send` takes them.
    private var sendTime: Date? { sendAt.flatMap { try? Date($0, strategy: .iso8601) } }

    func run() async throws {
        if to.count > 1 { return try await sendToMany() }
        let (backend, general) = try client.makeBackend(endpoints.endpoints)
        var context = general
        context.notFoundHint = "send to a registered user: their username, or the user id `securepush register` printed"
        context.flags = [
            "payload": "--message", "recipientId": "--to", "ttlSeconds": "--ttl", "idempotencyKey": "--idempotency-key",
            "priority": "--priority", "collapseId": "--collapse-id", "sendAt": "--send-at",
        ]
        let result: Push.Send.Result
        do {
            result = try await explainingFailures(context) {
                let recipientId = try await recipientID(backend)
                do {
                    return try await backend.send(
                        .init(
                            recipientId: recipientId, payload: message, ttlSeconds: ttl, idempotencyKey: idempotencyKey,
                            sealedOnly: sealedOnly ? true : nil, readOnce: readOnce ? true : nil,
                            priority: priority.map(Push.Priority.init(rawValue:)), collapseId: collapseId,
                            sendAt: sendTime)
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
        if let sendTime, sendTime.timeIntervalSinceNow >= 1 {
            print(
                "  scheduled for \(sendTime.formatted(.iso8601)): `securepush status` follows it, `securepush cancel` withdraws it"
            )
            return
        }
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
    /// `push.send` with `recipientIds`: every `--to` resolved, one call.
    func sendToMany() async throws {
        let (backend, general) = try client.makeBackend(endpoints.endpoints)
        var context = general
        context.flags = [
            "payload": "--message", "recipientIds": "--to", "ttlSeconds": "--ttl",
            "idempotencyKey": "--idempotency-key",
            "priority": "--priority", "collapseId": "--collapse-id", "sendAt": "--send-at",
        ]
        let result: Push.SendToMany.Result
        do {
            result = try await explainingFailures(context) {
                var ids: [String] = []
                for recipient in to { ids.append(try await recipientID(recipient, backend)) }
                return try await backend.send(
                    Push.SendToMany.Params(
                        recipientIds: ids, payload: message, ttlSeconds: ttl, idempotencyKey: idempotencyKey,
                        sealedOnly: sealedOnly ? true : nil, readOnce: readOnce ? true : nil,
                        priority: priority.map(Push.Priority.init(rawValue:)), collapseId: collapseId,
                        sendAt: sendTime))
            }
        } catch {
            await backend.shutdown()
            throw error
        }
        await backend.shutdown()
        for notification in result.notifications {
            print("notification \(notification.notificationId) for \(notification.recipientId)")
        }
        for unknown in result.unknownRecipientIds { print("no user \(unknown): nothing sent") }
        if let sendTime, sendTime.timeIntervalSinceNow >= 1 {
            print("  scheduled for \(sendTime.formatted(.iso8601))")
        }
    }

    /// `--to` as a user id: a UUID is taken as one (push.send checks it exists), anything else is a username.
    func recipientID(_ backend: SecurePushBackend) async throws -> String {
        try await recipientID(to[0], backend)
    }

    /// One `--to` as a user id.
    func recipientID(_ to: String, _ backend: SecurePushBackend) async throws -> String {
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
        let status = try await client.withBackend(endpoints) { context in
            context.notFound =
                "no notification \(notificationId) sent by this backend client (expired, or sent by another client)"
            context.notFoundHint = "use an id `securepush send` printed; only the client that sent it may ask"
        } _: { backend in
            try await backend.status(notificationId: notificationId)
        }
        print("notification \(status.notificationId)")
        // A send made at once is simply sent: only a scheduled one says where it stands.
        if let state = status.state, state != .sent || status.sendAt != nil {
            print("  \(state)\(status.sendAt.map { " (due \($0.formatted(.iso8601)))" } ?? "")")
        }
        if let traceID = status.traceId { print("  trace \(traceID)") }
        for delivery in status.deliveries {
            let error = delivery.lastError.map { " — \($0)" } ?? ""
            print(
                "  device \(delivery.deviceId) [\(delivery.platform)]: \(delivery.status), \(delivery.attempts) attempt(s)\(error)"
            )
        }
    }
}

/// `securepush cancel`: withdraw a scheduled send before it is due.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Withdraw a scheduled send before it is due (push.cancel).")

    @Argument(help: "the notification id `send --send-at` printed") var notificationId: String
    @OptionGroup var client: BackendClientOptions
    @OptionGroup var endpoints: EndpointOptions

    func run() async throws {
        try await client.withBackend(endpoints) { context in
            context.notFound =
                "no notification \(notificationId) sent by this backend client (expired, or sent by another client)"
            context.notFoundHint =
                "use an id `securepush send --send-at` printed; only the client that sent it may cancel"
            context.conflictHint =
                "it was due and is being delivered: `securepush status \(notificationId)` shows where"
        } _: { backend in
            try await backend.cancel(notificationId: notificationId)
        }
        print("cancelled \(notificationId): it will not be sent")
    }
}

extension BackendClientOptions {
    /// Runs `body` with this client's backend, explaining its failures as every backend command does (`adjust` sets
    /// the command's own texts: not found, conflict, flags), and closes the backend whether `body` succeeds or not.
    func withBackend<T: Sendable>(
        _ endpoints: EndpointOptions, adjust: (inout FailureContext) -> Void = { _ in },
        _ body: @Sendable (SecurePushBackend) async throws -> T
    ) async throws -> T {
        let (backend, general) = try makeBackend(endpoints.endpoints)
        var context = general
        adjust(&context)
        do {
            let result = try await explainingFailures(context) { try await body(backend) }
            await backend.shutdown()
            return result
        } catch {
            await backend.shutdown()
            throw error
        }
    }
}
