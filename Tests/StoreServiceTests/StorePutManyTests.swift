import Foundation
import SharedModels
import StoreService
import TestSupport
import Testing

@Suite("store.putMany and writer idempotency keys")
struct StorePutManyTests {
    func putMany(_ harness: StoreHarness, _ items: [Store.Put.Params], as writer: String = "push-dispatch")
        async throws -> [Store.Put.Result]
    {
        try await harness.client.call(
            Store.PutMany.self, .init(items: items), token: try await harness.signer.writerToken(writer)
        ).results
    }

    @Test("every item is stored, each read back by its own recipient only; sealed items open on their device only")
    func storesEveryItem() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let results = try await putMany(
            harness,
            [
                .init(recipientId: "alice", payload: "for alice"),
                .init(recipientId: "bob", payload: "for bob", ttlSeconds: 60),
                .init(
                    recipientId: "carol", payload: "for carol", recipientKeys: [phone.recipientKey], sealedOnly: true),
            ])
        #expect(results.count == 3)
        #expect(Set(results.map(\.notificationId)).count == 3)
        #expect(try await harness.get(results[0].notificationId, as: "alice").payload == "for alice")
        #expect(try await harness.get(results[1].notificationId, as: "bob").payload == "for bob")
        #expect(abs(results[1].expiresAt.timeIntervalSince(harness.clock.now) - 60) < 0.01)
        let sealed = try await harness.get(results[2].notificationId, as: "carol", device: phone.id)
        #expect(sealed.payload == nil)
        #expect(try phone.open(sealed) == "for carol")
        let other = await rpcError { try await harness.get(results[0].notificationId, as: "bob") }
        #expect(other?.code == RPCErrorCode.notFound)
    }

    @Test("one bad item refuses the whole call, naming the item's field, and stores nothing")
    func allOrNothing() async throws {
        let harness = try await StoreHarness()
        let device = TestDevice()
        for (items, field) in [
            (
                [Store.Put.Params(recipientId: "alice", payload: "ok"), .init(recipientId: "bob", payload: "")],
                "items[1].payload"
            ),
            ([Store.Put.Params(recipientId: "", payload: "x")], "items[0].recipientId"),
            ([Store.Put.Params(recipientId: "a", payload: "x", ttlSeconds: 0)], "items[0].ttlSeconds"),
            (
                [
                    Store.Put.Params(
                        recipientId: "a", payload: "x",
                        recipientKeys: [
                            device.recipientKey, .init(deviceId: device.id, publicKey: device.recipientKey.publicKey),
                        ])
                ], "items[0].recipientKeys[1].deviceId"
            ),
            ([Store.Put.Params(recipientId: "a", payload: "x", idempotencyKey: "")], "items[0].idempotencyKey"),
            ([], "items"),
            (Array(repeating: Store.Put.Params(recipientId: "a", payload: "x"), count: 1_001), "items"),
        ] {
            let error = await rpcError { _ = try await putMany(harness, items) }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.data == .object(["field": .string(field)]), "\(field)")
        }
        #expect(try await harness.storedRowCount() == 0)
    }

    @Test(
        "an item whose idempotency key the same writer stored before returns that notification; another writer's key is its own"
    )
    func writerKeys() async throws {
        let harness = try await StoreHarness()
        let first = try await putMany(
            harness,
            [
                .init(recipientId: "alice", payload: "one", idempotencyKey: "k-alice"),
                .init(recipientId: "bob", payload: "one", idempotencyKey: "k-bob"),
            ])
        let again = try await putMany(
            harness,
            [
                .init(recipientId: "bob", payload: "one", idempotencyKey: "k-bob"),
                .init(recipientId: "carol", payload: "one", idempotencyKey: "k-carol"),
            ])
        #expect(again[0] == first[1])
        #expect(again[1].notificationId != first[0].notificationId)
        #expect(try await harness.storedRowCount() == 3)
        // store.put honours the same keys.
        let single = try await harness.client.call(
            Store.Put.self, .init(recipientId: "alice", payload: "one", idempotencyKey: "k-alice"),
            token: try await harness.signer.writerToken())
        #expect(single == first[0])
        let otherWriter = try await putMany(
            harness, [.init(recipientId: "alice", payload: "one", idempotencyKey: "k-alice")], as: "another-writer")
        #expect(otherWriter[0].notificationId != first[0].notificationId)
        #expect(try await harness.storedRowCount() == 4)
    }

    @Test("a user token cannot put many (-32003 naming store:write)")
    func userTokenIsForbidden() async throws {
        let harness = try await StoreHarness()
        let error = await rpcError {
            try await harness.client.call(
                Store.PutMany.self, .init(items: [.init(recipientId: "alice", payload: "x")]),
                token: try await harness.signer.userToken("alice"))
        }
        #expect(error?.code == RPCErrorCode.forbidden)
        #expect(try await harness.storedRowCount() == 0)
    }
}
