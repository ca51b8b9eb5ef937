import Foundation
import SecurePushClient
import SharedModels
import TestSupport
import Testing

/// Send controls on the stack `securepush up` runs (one process, SQLite, HTTP/2 over TLS), through the SDKs.
@Suite("Send controls on the local stack")
struct SendControlsStoryTests {
    @Test(
        "an offline direct device gets only the newest of two sends with one collapseId; a send to many reaches each; a scheduled one arrives when due, not before, a cancelled one never"
    )
    func story() async throws {
        try await TestStack.with(.tls) { stack in
            let (device, userID) = try await stack.signedInDevice()
            let (other, otherID) = try await stack.signedInDevice()
            defer {
                Task {
                    await device.shutdown()
                    await other.shutdown()
                }
            }
            let phone = try await device.register(device: .init(platform: .direct, name: "phone"))
            let otherPhone = try await other.register(device: .init(platform: .direct, name: "phone"))
            let backend = try stack.backend()
            defer { Task { await backend.shutdown() } }

            // Offline: two sends with one collapseId; the first is replaced before the device connects.
            let older = try await backend.send(
                .init(recipientId: userID, payload: "balance 10", priority: .high, collapseId: "balance"))
            let newer = try await backend.send(
                .init(recipientId: userID, payload: "balance 12", priority: .high, collapseId: "balance"))
            #expect(
                try await backend.status(notificationId: older.notificationId).deliveries.map(\.status) == [.collapsed])
            let stream = device.notifications(deviceId: phone)
            let firstTwo = try await collect(2, from: stream, timeout: .seconds(3))
            #expect(firstTwo == [newer.notificationId], "the replaced id is not sent")
            #expect(try await device.fetch(newer.notificationId).payload == "balance 12")
            // The older one is still the user's to list and read: only its push was replaced.
            #expect(try await device.fetch(older.notificationId).payload == "balance 10")
            try await device.acknowledge(deviceId: phone, notificationId: newer.notificationId)

            // One call to both users, and one to an unknown id.
            let many = try await backend.send(
                Push.SendToMany.Params(
                    recipientIds: [userID, otherID, "no-such-user"], payload: "maintenance tonight",
                    idempotencyKey: "maintenance-1"))
            #expect(many.notifications.map(\.recipientId) == [userID, otherID])
            #expect(many.unknownRecipientIds == ["no-such-user"])
            let mine = try #require(many.notifications.first?.notificationId)
            let theirs = try #require(many.notifications.last?.notificationId)
            #expect(try await first(device.notifications(deviceId: phone)) == mine)
            #expect(try await first(other.notifications(deviceId: otherPhone)) == theirs)
            #expect(try await other.fetch(theirs).payload == "maintenance tonight")
            try await device.acknowledge(deviceId: phone, notificationId: mine)
            try await other.acknowledge(deviceId: otherPhone, notificationId: theirs)

            // Scheduled: invisible until due, then pushed; the cancelled one never.
            let sendAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3).rounded(.up))
            let scheduled = try await backend.send(
                .init(recipientId: userID, payload: "statement ready", sendAt: sendAt))
            let cancelled = try await backend.send(.init(recipientId: userID, payload: "never", sendAt: sendAt))
            try await backend.cancel(notificationId: cancelled.notificationId)
            let early = await #expect(throws: RPCError.self) { _ = try await device.fetch(scheduled.notificationId) }
            #expect(early?.code == RPCErrorCode.notFound)
            #expect(!(try await device.list().items.map(\.notificationId).contains(scheduled.notificationId)))
            let arrived = try await collect(2, from: device.notifications(deviceId: phone), timeout: .seconds(8))
            #expect(arrived == [scheduled.notificationId])
            #expect(Date() >= sendAt)
            #expect(try await device.fetch(scheduled.notificationId).payload == "statement ready")
            #expect(try await backend.status(notificationId: cancelled.notificationId).state == .cancelled)
        }
    }
}
