import DispatchService
import Foundation
import SharedModels
import Testing

@Suite("push.send")
struct PushSendTests {
    @Test("the store gets the payload; each active device of the recipient gets a queued job with only the id")
    func sendStoresPayloadAndQueuesIDs() async throws {
        let harness = try await DispatchHarness()
        let phone = try await harness.registerDevice(user: "alice")
        let laptop = try await harness.registerDevice(user: "alice")
        let bobs = try await harness.registerDevice(user: "bob")

        let result = try await harness.send(to: "alice", payload: "Your code is 123456", ttlSeconds: 600)

        let call = try #require(harness.store.storedCalls.only)
        #expect(call.params == Store.Put.Params(recipientId: "alice", payload: "Your code is 123456", ttlSeconds: 600))
        #expect(call.notificationID == result.notificationId)
        #expect(call.token == harness.auth.issuedTokens.last)
        #expect(
            result.deliveries == [
                .init(deviceId: phone, platform: .direct, status: .queued),
                .init(deviceId: laptop, platform: .direct, status: .queued),
            ])
        #expect(try await harness.pendingIDs(phone) == [result.notificationId])
        #expect(try await harness.pendingIDs(laptop) == [result.notificationId])
        #expect(try await harness.pendingIDs(bobs).isEmpty)
    }

    @Test("a recipient without devices is fine: the notification is stored, deliveries are empty")
    func recipientWithoutDevices() async throws {
        let harness = try await DispatchHarness()
        let result = try await harness.send(to: "nobody-yet")
        #expect(result.deliveries.isEmpty)
        #expect(harness.store.storedCalls.count == 1)
        #expect(try await harness.status(result.notificationId).deliveries.isEmpty)
    }

    @Test("push.send needs scope push:send: a user token is -32003, no token is -32001")
    func sendNeedsPushSendScope() async throws {
        let harness = try await DispatchHarness()
        let userToken = try await harness.signer.userToken("alice")
        let forbidden = await expectRPCError {
            _ = try await harness.client.call(
                Push.Send.self, .init(recipientId: "alice", payload: "x"), token: userToken)
        }
        #expect(forbidden?.code == RPCErrorCode.forbidden)
        #expect(forbidden?.data == .object(["requiredScope": "push:send"]))
        let missing = await expectRPCError {
            _ = try await harness.client.call(Push.Send.self, .init(recipientId: "alice", payload: "x"))
        }
        #expect(missing?.code == RPCErrorCode.unauthenticated)
        #expect(harness.store.calls.isEmpty)
    }

    @Test("the payload limit counts UTF-8 bytes and is checked before the store is called")
    func payloadLimit() async throws {
        let harness = try await DispatchHarness(configuration: DispatchHarness.configuration(maxPayloadBytes: 10))
        _ = try await harness.send(to: "alice", payload: "ééééé")  // 10 bytes
        let tooLarge = await expectRPCError { _ = try await harness.send(to: "alice", payload: "ééééé!") }
        #expect(tooLarge?.code == RPCErrorCode.invalidParams)
        #expect(tooLarge?.data == .object(["field": "payload"]))
        #expect(tooLarge?.message.contains("at most 10 bytes") == true)
        let empty = await expectRPCError { _ = try await harness.send(to: "alice", payload: "") }
        #expect(empty?.data == .object(["field": "payload"]))
        #expect(harness.store.calls.count == 1)
    }

    @Test("ttlSeconds, recipientId and idempotencyKey out of bounds are refused, naming the field")
    func boundsOfOtherFields() async throws {
        let harness = try await DispatchHarness()
        let cases: [(Push.Send.Params, String)] = [
            (.init(recipientId: "alice", payload: "x", ttlSeconds: 0), "ttlSeconds"),
            (.init(recipientId: "alice", payload: "x", ttlSeconds: 2_592_001), "ttlSeconds"),
            (.init(recipientId: "", payload: "x"), "recipientId"),
            (.init(recipientId: "alice", payload: "x", idempotencyKey: ""), "idempotencyKey"),
            (
                .init(recipientId: "alice", payload: "x", idempotencyKey: String(repeating: "k", count: 256)),
                "idempotencyKey"
            ),
        ]
        let token = try await harness.signer.senderToken()
        for (params, field) in cases {
            let error = await expectRPCError { _ = try await harness.client.call(Push.Send.self, params, token: token) }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.data == .object(["field": .string(field)]))
        }
        _ = try await harness.send(
            to: "alice", ttlSeconds: 2_592_000, idempotencyKey: String(repeating: "k", count: 255))
        #expect(harness.store.calls.count == 1)
    }

    @Test("a token the store refuses is fetched again from auth and the call retried once")
    func refusedTokenIsRenewedOnce() async throws {
        let harness = try await DispatchHarness()
        _ = try await harness.send(to: "alice")
        harness.store.refuseTokens(1)

        let result = try await harness.send(to: "alice")

        let tokens = harness.auth.issuedTokens
        #expect(tokens.count == 2)
        #expect(harness.store.calls.suffix(2).map(\.token) == [tokens[0], tokens[1]])
        #expect(harness.store.storedCalls.last?.notificationID == result.notificationId)

        harness.store.refuseTokens(2)
        let error = await expectRPCError { _ = try await harness.send(to: "alice") }
        #expect(error?.code == RPCErrorCode.unavailable)
        #expect(harness.auth.issuedTokens.count == 3)
    }
}

extension Collection {
    /// The single element, or `nil` when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
