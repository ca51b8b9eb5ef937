import APNsMock
import Foundation
import SecurePushClient
import SharedModels
import TestSupport
import Testing

@Suite("sealed notifications through the APNs mock")
struct APNsSealedStoryTests {
    @Test("APNs carries only the id; the extension fetches with its device key alone and decrypts, once")
    func sealedThroughAPNs() async throws {
        let state = APNsMockState()
        try await withAPNsMock(state: state) { mock in
            try await withAPNsStack(against: mock, devices: 2) { devices, backend in
                let (app, notificationExtension) = (devices[0], devices[1])
                let userId = try await app.createAccount(username: "sealed-iphone", password: "long enough password")
                try await app.signIn(username: "sealed-iphone", password: "long enough password")
                let key = DeviceKey()
                let deviceId = try await app.register(device: .init(platform: .apns, token: deviceToken(7)), key: key)

                let secret = "IBAN DE89 3704 0044 0532 0130 00 — transfer approved"
                let sent = try await backend.send(.init(recipientId: userId, payload: secret, readOnce: true))
                #expect(await eventually { !state.requests.isEmpty })
                let request = try #require(state.requests.first)
                #expect(request.bodyText.contains(sent.notificationId))
                #expect(!request.bodyText.contains("IBAN"), "the payload must never reach APNs")

                // The Notification Service Extension: no session, only the pushed id, the device id and the key.
                await notificationExtension.useSealedDevice(id: deviceId, key: key)
                #expect(try await notificationExtension.fetch(sent.notificationId).payload == secret)
                let gone = await #expect(throws: RPCError.self) { try await app.fetch(sent.notificationId) }
                #expect(gone?.code == RPCErrorCode.gone)
                let status = try await backend.status(notificationId: sent.notificationId)
                #expect(status.deliveries.first?.fetchedAt != nil)
            }
        }
    }
}
