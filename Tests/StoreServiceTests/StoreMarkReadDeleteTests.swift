import Foundation
import SharedModels
import StoreService
import Testing

@Suite("store.markRead and store.delete")
struct StoreMarkReadDeleteTests {
    @Test("marking read twice keeps the first readAt")
    func markReadIsIdempotent() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "alice")
        let token = try await harness.signer.userToken("alice")
        harness.clock.advance(by: 5)
        let firstMarkedAt = harness.clock.now

        let first = try await harness.client.call(
            Store.MarkRead.self, .init(notificationId: put.notificationId), token: token)
        harness.clock.advance(by: 60)
        let second = try await harness.client.call(
            Store.MarkRead.self, .init(notificationId: put.notificationId), token: token)

        #expect(abs(first.readAt.timeIntervalSince(firstMarkedAt)) < 0.001)
        #expect(second.readAt == first.readAt)
        #expect(try await harness.get(put.notificationId, as: "alice").readAt == first.readAt)
    }

    @Test("marking another user's or a missing notification is -32004, and changes nothing")
    func markReadOfOthers() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "alice")
        let mallory = try await harness.signer.userToken("mallory")
        for id in [put.notificationId, NotificationID.make()] {
            let error = await rpcError {
                try await harness.client.call(Store.MarkRead.self, .init(notificationId: id), token: mallory)
            }
            #expect(error == .notFound("notification"))
        }
        #expect(try await harness.get(put.notificationId, as: "alice").readAt == nil)
    }

    @Test("after delete, get is -32004 and a second delete is -32004")
    func deleteThenGet() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "alice")
        let token = try await harness.signer.userToken("alice")
        let deleted = try await harness.client.call(
            Store.Delete.self, .init(notificationId: put.notificationId), token: token)
        #expect(deleted == Empty())

        let getError = await rpcError { try await harness.get(put.notificationId, as: "alice") }
        #expect(getError?.code == RPCErrorCode.notFound)
        let againError = await rpcError {
            try await harness.client.call(Store.Delete.self, .init(notificationId: put.notificationId), token: token)
        }
        #expect(againError?.code == RPCErrorCode.notFound)
        #expect(try await harness.storedRowCount() == 0)
    }

    @Test("deleting another user's notification is -32004 and leaves it in place")
    func deleteOfOthers() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "alice", payload: "keep me")
        let error = await rpcError {
            try await harness.client.call(
                Store.Delete.self, .init(notificationId: put.notificationId),
                token: try await harness.signer.userToken("mallory"))
        }
        #expect(error == .notFound("notification"))
        #expect(try await harness.get(put.notificationId, as: "alice").payload == "keep me")
    }
}
