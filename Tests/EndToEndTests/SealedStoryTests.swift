import Foundation
import SecurePushClient
import SharedModels
import TestSupport
import Testing

@Suite("Sealed notifications end to end over real HTTP/2 sockets")
struct SealedStoryTests {
    @Test(
        "a sealed device on the direct channel fetches with a proof after its token expired, and decrypts",
        arguments: TransportMode.allCases)
    func sealedStory(mode: TransportMode) async throws {
        // 30 s tokens: the device's clock moves past expiry while a proof made on it is still within the 60 s window.
        try await TestStack.with(mode, extra: ["SECUREPUSH_ACCESS_TOKEN_TTL": "30"]) { stack in
            let clock = TestClock()
            let device = try SecurePushDevice(endpoints: stack.endpoints, logger: stack.logger, now: { clock.now })
            let username = "sealed-\(UUID().uuidString.prefix(8).lowercased())"
            let userId = try await device.createAccount(username: username, password: "sealed password 1234")
            try await device.signIn(username: username, password: "sealed password 1234")
            let key = DeviceKey()
            let deviceId = try await device.register(device: .init(platform: .direct, name: "phone"), key: key)
            #expect(try await device.devices().map(\.sealed) == [true])

            let backend = try stack.backend()
            let sent = try await backend.send(.init(recipientId: userId, payload: "PIN 8231 for your card ending 4411"))
            #expect(try await first(device.notifications(deviceId: deviceId)) == sent.notificationId)

            // The access token expires (by the device's clock); the device fetches with its key alone.
            let session = try #require(await device.session)
            clock.advance(by: 31)
            let fetched = try await device.fetch(sent.notificationId)
            #expect(fetched.payload == "PIN 8231 for your card ending 4411")
            #expect(fetched.sealed == nil)
            #expect(await device.session == session, "no refresh: the proof alone fetched it")

            // What the store hands out is ciphertext only this key opens.
            let store = try stack.rpcClient(stack.endpoints.store, name: "notification-store")
            let raw = try await store.rpc.call(
                Store.Get.self, .init(notificationId: sent.notificationId, deviceId: deviceId),
                token: session.accessToken)
            #expect(raw.payload == nil)
            let sealed = try #require(raw.sealed)
            #expect(try key.open(sealed, notificationId: sent.notificationId) == fetched.payload)
            #expect(throws: (any Error).self) { try DeviceKey().open(sealed, notificationId: sent.notificationId) }

            // The receipt reaches the sender.
            let status = try await backend.status(notificationId: sent.notificationId)
            #expect(status.deliveries.first?.fetchedAt != nil)
            await store.shutdown()
            await device.shutdown()
            await backend.shutdown()
        }
    }

    @Test(
        "a stolen token alone cannot burn a read-once sealed copy: -32602 naming the proof header, and the signed-in SDK still opens it with its key"
    )
    func tokenCannotBurnReadOnce() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (app, userId) = try await stack.signedInDevice()
            let key = DeviceKey()
            let deviceId = try await app.register(device: .init(platform: .direct), key: key)
            let backend = try stack.backend()
            let sent = try await backend.send(
                .init(recipientId: userId, payload: "read me once", sealedOnly: true, readOnce: true))

            // The attacker holds the user's access token and knows the ids.
            let session = try #require(await app.session)
            let store = try stack.rpcClient(stack.endpoints.store, name: "notification-store")
            let refused = await #expect(throws: RPCError.self) {
                try await store.rpc.call(
                    Store.Get.self, .init(notificationId: sent.notificationId, deviceId: deviceId),
                    token: session.accessToken)
            }
            #expect(refused?.code == RPCErrorCode.invalidParams)
            #expect(refused?.data?["field"] == .string("SecurePush-Device-Proof"))

            // The app, signed in with a valid token, is asked for its proof and opens the notification: once.
            #expect(try await app.fetch(sent.notificationId).payload == "read me once")
            let gone = await #expect(throws: RPCError.self) { try await app.fetch(sent.notificationId) }
            #expect(gone?.code == RPCErrorCode.gone)
            await store.shutdown()
            await app.shutdown()
            await backend.shutdown()
        }
    }

    @Test(
        "a lost laptop unregistered from the phone: its key opens nothing sealed to it before (-32001 device revoked)",
        arguments: TransportMode.allCases)
    func lostDeviceKeyStopsReading(mode: TransportMode) async throws {
        try await TestStack.with(mode) { stack in
            let (phone, userId) = try await stack.signedInDevice()
            let laptopKey = DeviceKey()
            let laptopID = try await phone.register(device: .init(platform: .direct, name: "laptop"), key: laptopKey)
            let backend = try stack.backend()
            let sent = try await backend.send(.init(recipientId: userId, payload: "statement ready", sealedOnly: true))

            // The thief holds the laptop's id and key, and no session.
            let thief = try SecurePushDevice(endpoints: stack.endpoints, logger: stack.logger)
            await thief.useSealedDevice(id: laptopID, key: laptopKey)
            try await phone.unregister(deviceId: laptopID)
            // push-dispatch tells the store at once (its outbox; retried until the store answers): bounded wait.
            var refused: RPCError?
            for _ in 0..<100 {
                do {
                    _ = try await thief.fetch(sent.notificationId)
                    refused = nil
                } catch let error as RPCError {
                    refused = error
                    if error.message == "Unauthenticated: device revoked" { break }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(refused?.code == RPCErrorCode.unauthenticated)
            #expect(refused?.message == "Unauthenticated: device revoked")
            for client in [phone, thief] { await client.shutdown() }
            await backend.shutdown()
        }
    }

    @Test("with no session at all, the device id and key alone fetch a read-once notification, exactly once")
    func noSessionReadOnce() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (app, userId) = try await stack.signedInDevice()
            let key = DeviceKey()
            let deviceId = try await app.register(device: .init(platform: .direct), key: key)
            let backend = try stack.backend()
            let sent = try await backend.send(
                .init(recipientId: userId, payload: "read me once", sealedOnly: true, readOnce: true))

            // A Notification Service Extension: nothing but the pushed id, the device id and the key.
            let extensionProcess = try SecurePushDevice(endpoints: stack.endpoints, logger: stack.logger)
            await extensionProcess.useSealedDevice(id: deviceId, key: key)
            #expect(try await extensionProcess.fetch(sent.notificationId).payload == "read me once")
            let gone = await #expect(throws: RPCError.self) { try await app.fetch(sent.notificationId) }
            #expect(gone?.code == RPCErrorCode.gone)
            for client in [app, extensionProcess] { await client.shutdown() }
            await backend.shutdown()
        }
    }
}
