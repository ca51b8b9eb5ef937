import AuthService
import ChildProcesses
import Foundation
import SecurePushClient
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("The audit trail over real sockets: every action recorded, pseudonymised, verified by the CLI")
struct AuditTrailStoryTests {
    /// Runs the built `securepush` CLI; its exit status, standard output and standard error.
    static func securepush(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = ServiceProcess.buildDirectory.appendingPathComponent("securepush")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SECUREPUSH_") }
        process.standardInput = FileHandle.nullDevice
        let result = try await process.runCapturingOutput()
        return (result.status, String(decoding: result.output, as: UTF8.self), result.error)
    }

    @Test(
        "sign-ins, registrations, devices, sends, fetches by token and by proof, receipts, deletions, webhooks: each an entry, no person in clear; `audit verify` passes, then names the entry altered on disk"
    )
    func everyActionRecordedAndVerified() async throws {
        let stack = try await TestStack.start(.cleartext, extra: ["SECUREPUSH_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"])
        defer { try? FileManager.default.removeItem(atPath: stack.dataDirectory) }
        let username = "audit-\(UUID().uuidString.prefix(8).lowercased())"
        let password = "audit password 1234"
        let payload = "balance 1,234.56 on account 99-1234"
        var clearValues: [String] = [username]
        do {
            let device = try SecurePushDevice(endpoints: stack.endpoints, logger: stack.logger)
            let userId = try await device.createAccount(username: username, password: password)
            clearValues.append(userId)
            let auth = try stack.rpcClient(stack.endpoints.auth, name: "auth")
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Auth.Login.self, .init(username: username, password: "wrong password 99"))
            }
            let grant = try await auth.rpc.call(Auth.Login.self, .init(username: username, password: password))
            _ = try await auth.rpc.call(Auth.Refresh.self, .init(refreshToken: grant.refreshToken))
            try await device.signIn(username: username, password: password)
            let key = DeviceKey()
            let deviceId = try await device.register(device: .init(platform: .direct, name: "phone"), key: key)
            clearValues.append(deviceId)

            let backend = try stack.backend()
            let sent = try await backend.send(.init(recipientId: userId, payload: payload))
            let session = try #require(await device.session)
            let store = try stack.rpcClient(stack.endpoints.store, name: "notification-store")
            _ = try await store.rpc.call(
                Store.Get.self, .init(notificationId: sent.notificationId, deviceId: deviceId),
                token: session.accessToken)
            let holder = try SecurePushDevice(endpoints: stack.endpoints, logger: stack.logger)
            await holder.useSealedDevice(id: deviceId, key: key)
            #expect(try await holder.fetch(sent.notificationId).payload == payload)
            _ = try await device.markRead(sent.notificationId)
            _ = try await store.rpc.call(
                Store.Delete.self, .init(notificationId: sent.notificationId), token: session.accessToken)
            let hook = try await backend.createWebhook(
                .init(url: "http://127.0.0.1:9/hooks/securepush", events: [.deliverySent]))
            try await backend.deleteWebhook(webhookId: hook.webhookId)
            try await device.unregister(deviceId: deviceId)
            try await device.signOut()
            for client in [device, holder] { await client.shutdown() }
            await backend.shutdown()
            for peer in [auth, store] { await peer.shutdown() }
        } catch {
            await stack.stack.stop()
            throw error
        }
        // Stopping commits what is left and signs each chain's head.
        await stack.stack.stop()

        let verified = try await Self.securepush(["audit", "verify", "--data-dir", stack.dataDirectory])
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        for service in ["auth", "notification-store", "push-dispatch"] {
            #expect(verified.output.contains("ok \(service): 1 chains"), "\(verified.output)")
        }
        #expect(verified.output.contains("0 entries after the last checkpoint"))

        let exported = try await Self.securepush([
            "audit", "export", "--data-dir", stack.dataDirectory, "--since", "1h",
        ])
        #expect(exported.status == 0, "\(exported.error)")
        let lines = exported.output.split(separator: "\n")
        let types = Set(
            try lines.map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require((object["entry"] as? [String: Any])?["type"] as? String)
            })
        for expected in [
            "audit.chain.started", "auth.register", "auth.signin.failed", "auth.signin.succeeded", "auth.refresh",
            "auth.signout", "auth.client_token.issued", "devices.registered", "devices.unregistered", "push.send",
            "store.put", "store.fetch", "store.receipt", "store.delete", "webhooks.created", "webhooks.deleted",
        ] {
            #expect(types.contains(expected), "no \(expected) entry in \(types.sorted())")
        }
        let fetchBy = lines.filter { $0.contains(#""type":"store.fetch""#) }
        #expect(
            fetchBy.contains { $0.contains(#""by":"token""#) } && fetchBy.contains { $0.contains(#""by":"proof""#) })
        // No person in clear, nor the payload: usernames, user and device ids; client addresses only as `d:` HMACs.
        for value in clearValues + [payload] {
            #expect(!exported.output.contains(value), "\(value) appears in the audit trail")
        }
        let addresses = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                .flatMap { ($0["entry"] as? [String: Any])?["fields"] as? [String: Any] }?["address"] as? String
        }
        #expect(addresses.count >= 10)
        #expect(addresses.allSatisfy { $0.hasPrefix("d:") && $0.count == 45 }, "\(addresses)")
        // The same person under the same pseudonym in every service.
        let user = try #require(
            lines.first { $0.contains(#""type":"auth.register""#) }.flatMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    .flatMap { ($0["entry"] as? [String: Any])?["fields"] as? [String: Any] }?["user"] as? String
            })
        #expect(user.hasPrefix("u:"))
        #expect(lines.contains { $0.contains(#""type":"push.send""#) && $0.contains(user) })
        #expect(
            lines.contains { $0.contains(#""type":"store.fetch""#) && $0.contains(user) },
            "\(lines.filter { $0.contains("store.fetch") })")

        // One byte of one entry changed on disk: verify names it and exits 1.
        let database = try ServiceDatabase.sqlite(
            path: stack.dataDirectory + "/auth.sqlite", migrations: AuthMigrations.all)
        let altered = try await database.sql.execute(
            "UPDATE auth_audit_entry SET body = replace(body, 'auth.signin.failed', 'auth.signin.faileD') "
                + "WHERE type = 'auth.signin.failed'", [])
        #expect(altered == 1)
        let sequence = try #require(
            try await database.sql.readOne(
                "SELECT sequence FROM auth_audit_entry WHERE type = 'auth.signin.failed'", [])
        ).decode(0, as: Int64.self)
        let refused = try await Self.securepush(["audit", "verify", "--data-dir", stack.dataDirectory])
        #expect(refused.status == 1)
        #expect(refused.output.contains("ALTERED auth chain r"), "\(refused.output)")
        #expect(refused.output.contains("entry \(sequence): hash does not match the entry's body"), "\(refused.output)")
    }
}
