import DispatchService
import Foundation
import SharedModels
import Testing

/// `collapseId`: a newer send replaces an older one of the same client, recipient and app while it waits.
@Suite("push.send collapseId")
struct CollapseTests {
    func send(
        _ harness: DispatchHarness, to recipient: String, collapseId: String?, as sender: String = "app-backend",
        priority: Push.Priority? = nil
    ) async throws -> Push.Send.Result {
        try await harness.client.call(
            Push.Send.self,
            .init(recipientId: recipient, payload: "balance changed", priority: priority, collapseId: collapseId),
            token: try await harness.signer.senderToken(sender))
    }

    @Test(
        "two sends with one collapseId to an offline device: only the second is pending; the first stays listed, collapsed"
    )
    func newerReplacesOlder() async throws {
        let harness = try await DispatchHarness()
        let phone = try await harness.registerDevice(user: "alice")
        let older = try await send(harness, to: "alice", collapseId: "balance")
        let other = try await send(harness, to: "alice", collapseId: nil)
        let newer = try await send(harness, to: "alice", collapseId: "balance")

        #expect(try await harness.pendingIDs(phone) == [other.notificationId, newer.notificationId])
        let replaced = try await harness.status(older.notificationId)
        #expect(replaced.deliveries.map(\.status) == [.collapsed])
        #expect(try await harness.status(newer.notificationId).deliveries.map(\.status) == [.queued])
        // The older notification is still the store's: nothing was deleted there.
        #expect(harness.store.storedCalls.count == 3)
    }

    @Test("a collapse id is scoped to the sending client and the recipient: others' sends are never replaced")
    func scoped() async throws {
        let harness = try await DispatchHarness()
        let alice = try await harness.registerDevice(user: "alice")
        let bob = try await harness.registerDevice(user: "bob")
        let shop = try await send(harness, to: "alice", collapseId: "news", as: "shop")
        let toBob = try await send(harness, to: "bob", collapseId: "news", as: "bank")
        let bank = try await send(harness, to: "alice", collapseId: "news", as: "bank")
        #expect(try await harness.pendingIDs(alice) == [shop.notificationId, bank.notificationId])
        #expect(try await harness.pendingIDs(bob) == [toBob.notificationId])
    }

    @Test(
        "a send to many collapses each recipient's own earlier send with the id; the jobs carry priority and collapse id"
    )
    func manyCollapse() async throws {
        let harness = try await DispatchHarness()
        let alice = try await harness.registerDevice(user: "alice")
        let bob = try await harness.registerDevice(user: "bob")
        let early = try await send(harness, to: "alice", collapseId: "digest")
        let many = try await harness.client.call(
            Push.SendToMany.self,
            .init(recipientIds: ["alice", "bob"], payload: "digest", priority: .normal, collapseId: "digest"),
            token: try await harness.signer.senderToken())
        let ids = many.notifications.map(\.notificationId)
        #expect(try await harness.pendingIDs(alice) == [ids[0]])
        #expect(try await harness.pendingIDs(bob) == [ids[1]])
        #expect(try await harness.status(early.notificationId).deliveries.map(\.status) == [.collapsed])
        let jobs = try await harness.components.devices.pendingJobs(deviceID: bob)
        #expect(jobs.map(\.priority) == [.normal])
        #expect(jobs.map(\.collapseID) == ["digest"])
    }
}
