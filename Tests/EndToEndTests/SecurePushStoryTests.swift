import Foundation
import JWTKit
import SecurePushClient
import ServiceCore
import SharedModels
import Synchronization
import Testing

@Suite("The secure push story over real HTTP/2 sockets")
struct SecurePushStoryTests {
    @Test(
        "the whole story works: register, sign in, register a device, send, receive only the id, fetch the payload",
        arguments: TransportMode.allCases)
    func wholeStory(mode: TransportMode) async throws {
        let stack = try await TestStack.start(mode)
        do {
            let demo = SecurePushDemo(
                endpoints: stack.endpoints, clientID: stack.backendClientID, clientSecret: stack.backendClientSecret)
            let steps = StepRecorder()
            let outcome = try await demo.run(logger: stack.logger) { steps.record($0) }
            #expect(outcome.fetchedPayload.hasPrefix("Your one-time code is "))
            #expect(steps.lines.count == 7)
            let status = try await stack.backend().status(notificationId: outcome.notificationId)
            #expect(status.deliveries.map(\.status) == [.acknowledged])
            #expect(status.deliveries.first?.deviceId == outcome.deviceId)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    @Test(
        "a second user cannot fetch the first user's notification, and learns nothing from trying",
        arguments: TransportMode.allCases)
    func secondUserIsRefused(mode: TransportMode) async throws {
        try await TestStack.with(mode) { stack in
            let (alice, aliceId) = try await stack.signedInDevice()
            let (mallory, _) = try await stack.signedInDevice()
            let backend = try stack.backend()
            let sent = try await backend.send(.init(recipientId: aliceId, payload: "alice's balance is 1,234.56"))

            let stolen = await #expect(throws: RPCError.self) { try await mallory.fetch(sent.notificationId) }
            let missing = await #expect(throws: RPCError.self) {
                try await mallory.fetch(UUID().uuidString.lowercased())
            }
            #expect(stolen?.code == RPCErrorCode.notFound)
            #expect(stolen == missing, "another user's notification must look exactly like a missing one")
            #expect(try await alice.fetch(sent.notificationId).payload == "alice's balance is 1,234.56")
            for client in [alice, mallory] { await client.shutdown() }
            await backend.shutdown()
        }
    }

    @Test("a device that connects after the send still gets its notification")
    func lateDevice() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (device, userId) = try await stack.signedInDevice()
            let deviceId = try await device.register(device: .init(platform: .direct, name: "offline phone"))
            let backend = try stack.backend()
            let first = try await backend.send(.init(recipientId: userId, payload: "first"))
            let second = try await backend.send(.init(recipientId: userId, payload: "second"))

            // Only now does the device come online: both ids arrive, in order.
            let ids = try await collect(2, from: device.notifications(deviceId: deviceId))
            #expect(ids == [first.notificationId, second.notificationId])
            #expect(try await device.fetch(ids[1]).payload == "second")
            await device.shutdown()
            await backend.shutdown()
        }
    }

    @Test("acknowledged ids are not delivered again after a reconnect; unacknowledged ones are")
    func acknowledgementsStopRedelivery() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (device, userId) = try await stack.signedInDevice()
            let deviceId = try await device.register(device: .init(platform: .direct))
            let backend = try stack.backend()
            let acked = try await backend.send(.init(recipientId: userId, payload: "one"))
            let unacked = try await backend.send(.init(recipientId: userId, payload: "two"))
            #expect(
                try await collect(2, from: device.notifications(deviceId: deviceId)) == [
                    acked.notificationId, unacked.notificationId,
                ])
            try await device.acknowledge(deviceId: deviceId, notificationId: acked.notificationId)

            // A new connection (a new sequence) gets only what was not acknowledged.
            let again = try await collect(2, from: device.notifications(deviceId: deviceId), timeout: .seconds(2))
            #expect(again == [unacked.notificationId])
            await device.shutdown()
            await backend.shutdown()
        }
    }

    @Test("a forged token is refused by the store and by push-dispatch")
    func forgedToken() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (device, userId) = try await stack.signedInDevice()
            let backend = try stack.backend()
            let sent = try await backend.send(.init(recipientId: userId, payload: "secret"))
            let realKeyID = try #require(
                try await stack.rpcClient(stack.endpoints.auth, name: "auth").rpc.call(Auth.Keys.self, Empty()).keys
                    .first?
                    .kid)

            // Signed by an attacker's key, claiming the real key id and the victim's user id.
            let attackerKeys = JWTKeyCollection()
            await attackerKeys.add(ecdsa: ES256PrivateKey(), kid: JWKIdentifier(string: realKeyID))
            let claims = AccessTokenClaims(
                subject: userId, scopes: [Scope.user], issuedAt: Date(), expiresAt: Date().addingTimeInterval(600),
                tokenID: UUID().uuidString)
            let forged = try await attackerKeys.sign(claims, kid: JWKIdentifier(string: realKeyID))

            let store = try stack.rpcClient(stack.endpoints.store, name: "notification-store")
            let refused = await #expect(throws: RPCError.self) {
                try await store.rpc.call(Store.Get.self, .init(notificationId: sent.notificationId), token: forged)
            }
            #expect(refused?.code == RPCErrorCode.unauthenticated)
            let dispatch = try stack.rpcClient(stack.endpoints.dispatch, name: "push-dispatch")
            let refusedToo = await #expect(throws: RPCError.self) {
                try await dispatch.rpc.call(Devices.List.self, Empty(), token: forged)
            }
            #expect(refusedToo?.code == RPCErrorCode.unauthenticated)
            let garbage = await #expect(throws: RPCError.self) {
                try await store.rpc.call(Store.Get.self, .init(notificationId: sent.notificationId), token: "not-a-jwt")
            }
            #expect(garbage?.code == RPCErrorCode.unauthenticated)
            for peer in [store, dispatch] { await peer.shutdown() }
            await device.shutdown()
            await backend.shutdown()
        }
    }

    @Test("an expired access token is refused, and the SDK refreshes it by itself")
    func expiredToken() async throws {
        try await TestStack.with(.cleartext, extra: ["SECUREPUSH_ACCESS_TOKEN_TTL": "4"]) { stack in
            let (device, userId) = try await stack.signedInDevice()
            let backend = try stack.backend()
            let sent = try await backend.send(.init(recipientId: userId, payload: "secret"))
            let expired = try #require(await device.session?.accessToken)
            // Lifetimes are whole seconds; the refreshed token must outlive a refresh and a fetch on a loaded machine.
            try await Task.sleep(for: .milliseconds(5_100))

            let store = try stack.rpcClient(stack.endpoints.store, name: "notification-store")
            let refused = await #expect(throws: RPCError.self) {
                try await store.rpc.call(Store.Get.self, .init(notificationId: sent.notificationId), token: expired)
            }
            #expect(refused?.code == RPCErrorCode.unauthenticated)
            // The SDK notices the token is stale, refreshes it (rotating the refresh token) and fetches.
            #expect(try await device.fetch(sent.notificationId).payload == "secret")
            #expect(await device.session?.accessToken != expired)
            await store.shutdown()
            await device.shutdown()
            await backend.shutdown()
        }
    }
}

/// Records the demo's steps.
final class StepRecorder: Sendable {
    private let storage = Mutex<[String]>([])
    func record(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
