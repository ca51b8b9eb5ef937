import Foundation
import SharedModels
import StoreService
import Testing

@Suite("store.get")
struct StoreGetTests {
    @Test("another user's notification gives byte-for-byte the same error as a missing one")
    func anotherUsersNotificationLooksMissing() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "alice", payload: "for alice only")
        let malloryToken = try await harness.signer.userToken("mallory")

        let foreign = try await harness.rawResponse(
            method: Store.Get.name, params: .object(["notificationId": .string(put.notificationId)]),
            token: malloryToken)
        let missing = try await harness.rawResponse(
            method: Store.Get.name, params: .object(["notificationId": .string(NotificationID.make())]),
            token: malloryToken)

        #expect(foreign == missing)
        let error = try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<Store.StoredNotification>.self, from: foreign)
            .error
        #expect(error?.code == RPCErrorCode.notFound)
        #expect(!String(decoding: foreign, as: UTF8.self).contains("for alice only"))
        // The owner still reads it.
        #expect(try await harness.get(put.notificationId, as: "alice").payload == "for alice only")
    }

    @Test("a malformed id is -32602 naming notificationId")
    func malformedID() async throws {
        let harness = try await StoreHarness()
        for id in ["", "123", "not-a-uuid", "' OR 1=1 --"] {
            let error = await rpcError { try await harness.get(id, as: "alice") }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.field == "notificationId")
        }
    }

    @Test("ids are matched whatever their letter case")
    func uppercaseID() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "alice")
        #expect(
            try await harness.get(put.notificationId.uppercased(), as: "alice").notificationId == put.notificationId)
    }

    @Test("a service token (no user scope) cannot read: -32003")
    func serviceTokenCannotRead() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "push-dispatch")
        let error = await rpcError {
            try await harness.client.call(
                Store.Get.self, .init(notificationId: put.notificationId), token: try await harness.signer.writerToken()
            )
        }
        #expect(error?.code == RPCErrorCode.forbidden)
    }

    @Test("reading without a token is -32001")
    func readingNeedsToken() async throws {
        let harness = try await StoreHarness()
        let put = try await harness.put(to: "alice")
        let error = await rpcError {
            try await harness.client.call(Store.Get.self, .init(notificationId: put.notificationId), token: nil)
        }
        #expect(error?.code == RPCErrorCode.unauthenticated)
    }
}
