import Foundation
import SecurePushClient
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Erasing a person (users.delete) over real sockets")
struct ErasureStoryTests {
    /// What a user leaves behind: an account, a sealed device, sends (one scheduled, one with an idempotency key),
    /// a fetch, a read mark.
    struct Footprint {
        let device: SecurePushDevice
        let username: String
        let password: String
        let userId: String
        let deviceId: String
        let payloads: [String]
    }

    static func footprint(_ stack: TestStack, _ backend: SecurePushBackend, name: String) async throws -> Footprint {
        let device = try SecurePushDevice(endpoints: stack.endpoints, logger: stack.logger)
        let username = "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
        let password = "password of \(name) 1234"
        let userId = try await device.createAccount(username: username, password: password)
        try await device.signIn(username: username, password: password)
        let deviceId = try await device.register(
            device: .init(platform: .direct, name: "\(name)'s phone"), key: DeviceKey())
        let payloads = ["\(name) balance 4,812.07", "\(name) statement ready", "\(name) scheduled reminder"]
        let first = try await backend.send(
            .init(recipientId: userId, payload: payloads[0], idempotencyKey: "k-\(name)"))
        _ = try await backend.send(.init(recipientId: userId, payload: payloads[1], readOnce: true))
        _ = try await backend.send(
            .init(recipientId: userId, payload: payloads[2], sendAt: Date().addingTimeInterval(3_600)))
        #expect(try await device.fetch(first.notificationId).payload == payloads[0])
        _ = try await device.markRead(first.notificationId)
        return Footprint(
            device: device, username: username, password: password, userId: userId, deviceId: deviceId,
            payloads: payloads)
    }

    @Test(
        "after users.delete no username, user id, device id or payload byte of the user is in any SQLite file (write-ahead logs included), sends to them are -32004, and another user is untouched"
    )
    func erasedEverywhere() async throws {
        let stack = try await TestStack.start(.cleartext)
        defer { try? FileManager.default.removeItem(atPath: stack.dataDirectory) }
        let victim: Footprint
        let bystander: Footprint
        do {
            let backend = try stack.backend()
            victim = try await Self.footprint(stack, backend, name: "victim")
            bystander = try await Self.footprint(stack, backend, name: "bystander")

            // A fresh sign-in, then the user erases themselves.
            try await victim.device.signIn(username: victim.username, password: victim.password)
            let result = try await victim.device.deleteAccount()
            #expect(result.services["auth"]?["users"] == 1)
            #expect(result.services["auth"]?["sessions"] == 2)
            #expect(result.services["push-dispatch"]?["devices"] == 1)
            #expect(result.services["push-dispatch"]?["sends"] == 3)
            #expect(result.services["push-dispatch"]?["idempotencyKeys"] == 1)
            #expect(result.services["notification-store"]?["notifications"] == 3)
            // The scheduled one is sealed to the devices only when due.
            #expect(result.services["notification-store"]?["sealedCopies"] == 2)
            #expect(result.services["notification-store"]?["receipts"] == 1)

            // Sends to the erased user: unknown at once.
            let refused = await #expect(throws: RPCError.self) {
                try await backend.send(.init(recipientId: victim.userId, payload: "after erasure"))
            }
            #expect(refused?.code == RPCErrorCode.notFound)
            // Signing in: the account is gone.
            await #expect(throws: RPCError.self) {
                try await victim.device.signIn(username: victim.username, password: victim.password)
            }
            // The bystander keeps everything.
            #expect(try await bystander.device.devices().map(\.deviceId) == [bystander.deviceId])
            #expect(try await bystander.device.list().items.count == 2, "the scheduled one is not shown before due")
            _ = try await backend.send(.init(recipientId: bystander.userId, payload: "still here"))
            for client in [victim.device, bystander.device] { await client.shutdown() }
            await backend.shutdown()
        } catch {
            await stack.stack.stop()
            throw error
        }
        await stack.stack.stop()

        var scanned = 0
        let files = try FileManager.default.subpathsOfDirectory(atPath: stack.dataDirectory)
        for file in files {
            let path = stack.dataDirectory + "/" + file
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            scanned += 1
            for value in [victim.username, victim.userId, victim.deviceId] + victim.payloads {
                #expect(bytes.firstRange(of: Data(value.utf8)) == nil, "\(value) is still in \(file)")
            }
        }
        #expect(scanned >= 3)
        #expect(files.contains("auth.sqlite") && files.contains("store.sqlite") && files.contains("dispatch.sqlite"))
        // The bystander is still on disk (the scan can find what is there).
        let dispatch = try #require(FileManager.default.contents(atPath: stack.dataDirectory + "/dispatch.sqlite"))
        let wal = FileManager.default.contents(atPath: stack.dataDirectory + "/dispatch.sqlite-wal") ?? Data()
        #expect(
            dispatch.firstRange(of: Data(bystander.deviceId.utf8)) != nil
                || wal.firstRange(of: Data(bystander.deviceId.utf8)) != nil)

        // The trail still verifies across the erasure, and names the erasure.
        let verified = try await AuditTrailStoryTests.securepush(["audit", "verify", "--data-dir", stack.dataDirectory])
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        let exported = try await AuditTrailStoryTests.securepush(
            ["audit", "export", "--data-dir", stack.dataDirectory, "--since", "1h"])
        for type in ["users.delete", "users.erased", "devices.user.erased", "store.user.erased"] {
            #expect(exported.output.contains(#""type":"\#(type)""#), "no \(type) entry")
        }
    }
}
