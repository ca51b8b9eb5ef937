import Foundation
import SharedModels
import StoreService
import TestSupport
import Testing

/// Notifications stored with `sendAt` (a scheduled send): held from the recipient until `store.publish`.
@Suite("store.put sendAt, store.publish and store.discard")
struct StoreHeldNotificationTests {
    func putHeld(
        _ harness: StoreHarness, to recipient: String = "alice", in seconds: TimeInterval = 3_600,
        sealedOnly: Bool? = nil, ttl: Int? = 600
    ) async throws -> Store.Put.Result {
        try await harness.client.call(
            Store.Put.self,
            .init(
                recipientId: recipient, payload: "statement ready", ttlSeconds: ttl, sealedOnly: sealedOnly,
                sendAt: harness.clock.now.addingTimeInterval(seconds)),
            token: try await harness.signer.writerToken())
    }

    func publish(_ harness: StoreHarness, _ items: [Store.Publish.Item]) async throws -> Store.Publish.Result {
        try await harness.client.call(
            Store.Publish.self, .init(items: items), token: try await harness.signer.writerToken())
    }

    @Test(
        "a held notification is neither listed, fetched, marked read nor deleted by its recipient; it expires ttl after sendAt"
    )
    func heldIsInvisible() async throws {
        let harness = try await StoreHarness()
        let held = try await putHeld(harness)
        #expect(abs(held.expiresAt.timeIntervalSince(harness.clock.now) - 4_200) < 0.01)
        #expect(try await harness.list(as: "alice").items.isEmpty)
        let get = await rpcError { try await harness.get(held.notificationId, as: "alice") }
        #expect(get?.code == RPCErrorCode.notFound)
        let user = try await harness.signer.userToken("alice")
        let mark = await rpcError {
            _ = try await harness.client.call(
                Store.MarkRead.self, .init(notificationId: held.notificationId), token: user)
        }
        #expect(mark?.code == RPCErrorCode.notFound)
        let delete = await rpcError {
            _ = try await harness.client.call(
                Store.Delete.self, .init(notificationId: held.notificationId), token: user)
        }
        #expect(delete?.code == RPCErrorCode.notFound)
        #expect(try await harness.storedRowCount() == 1, "still held")
    }

    @Test(
        "publish shows it, sealed to the devices named then; sealedOnly erases the readable copy; a repeat changes nothing"
    )
    func publishShows() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let plain = try await putHeld(harness)
        let sealed = try await putHeld(harness, sealedOnly: true)
        harness.clock.advance(by: 3_600)
        let result = try await publish(
            harness,
            [
                .init(notificationId: plain.notificationId),
                .init(notificationId: sealed.notificationId, recipientKeys: [phone.recipientKey], sealedOnly: true),
                .init(notificationId: UUID().uuidString.lowercased()),
            ])
        #expect(result.published == 2)
        #expect(result.missingNotificationIds.count == 1)
        #expect(try await harness.get(plain.notificationId, as: "alice").payload == "statement ready")
        let copy = try await harness.get(sealed.notificationId, as: "alice", device: phone.id)
        #expect(try phone.open(copy) == "statement ready")
        // No readable copy is left for a sealed-only send: the token alone gets nothing to read.
        let tokenOnly = await rpcError { try await harness.get(sealed.notificationId, as: "alice") }
        #expect(tokenOnly != nil)
        let listed = try await harness.list(as: "alice").items.map(\.notificationId)
        #expect(Set(listed) == [plain.notificationId, sealed.notificationId])
        // Its creation time is when it was shown: the newest in the list.
        #expect(
            try await harness.get(plain.notificationId, as: "alice").createdAt.timeIntervalSince(harness.clock.now)
                .magnitude < 0.01)
        #expect(
            try await publish(harness, [.init(notificationId: plain.notificationId)])
                == Store.Publish.Result(published: 0, missingNotificationIds: []))
    }

    @Test("discard deletes held notifications only; a shown one stays; bounds are -32602")
    func discardHeldOnly() async throws {
        let harness = try await StoreHarness()
        let cancelled = try await putHeld(harness)
        let shown = try await putHeld(harness)
        _ = try await publish(harness, [.init(notificationId: shown.notificationId)])
        let token = try await harness.signer.writerToken()
        let discarded = try await harness.client.call(
            Store.Discard.self, .init(notificationIds: [cancelled.notificationId, shown.notificationId]),
            token: token)
        #expect(discarded.discarded == 1)
        #expect(try await harness.storedRowCount() == 1)
        #expect(try await harness.get(shown.notificationId, as: "alice").payload == "statement ready")
        let empty = await rpcError {
            _ = try await harness.client.call(Store.Discard.self, .init(notificationIds: []), token: token)
        }
        #expect(empty?.data == .object(["field": "notificationIds"]))
        let tooFar = await rpcError { _ = try await putHeld(harness, in: 32 * 86_400) }
        #expect(tooFar?.data == .object(["field": "sendAt"]))
        let user = await rpcError {
            _ = try await harness.client.call(
                Store.Publish.self, .init(items: [.init(notificationId: shown.notificationId)]),
                token: try await harness.signer.userToken("alice"))
        }
        #expect(user?.code == RPCErrorCode.forbidden)
    }
}
