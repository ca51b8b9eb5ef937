import APNsMock
import Foundation
import SecurePushClient
import SharedModels
import TestSupport
import Testing

@Suite("A known APNs token does not move a device: the challenge reaches APNs, the SDK answers it")
struct APNsDeviceVerificationTests {
    @Test("another user's registration of a token is pending; it moves when their SDK answers the pushed challenge")
    func challengeThroughAPNs() async throws {
        let state = APNsMockState()
        try await withAPNsMock(state: state) { mock in
            try await withAPNsStack(against: mock, devices: 2) { devices, backend in
                let (alice, bob) = (devices[0], devices[1])
                let aliceId = try await alice.createAccount(username: "alice-phone", password: "long enough password")
                try await alice.signIn(username: "alice-phone", password: "long enough password")
                let bobId = try await bob.createAccount(username: "bob-phone", password: "long enough password")
                try await bob.signIn(username: "bob-phone", password: "long enough password")
                let token = deviceToken(41)
                let alicesPhone = try await alice.register(device: .init(platform: .apns, token: token))

                // Bob knows the token. Registering it gives him a pending device; APNs gets a background push with
                // the challenge, and nothing else.
                let pending = try await bob.registration(device: .init(platform: .apns, token: token))
                #expect(pending.verification == "pending")
                let request = try #require(state.requests.last)
                #expect(request.deviceToken == token)
                #expect(request.headers["apns-push-type"] == "background")
                #expect(request.headers["apns-priority"] == "5")
                let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                #expect(Set(body.keys) == ["aps", "securepushChallenge", "securepushDeviceId"])
                #expect(body["securepushDeviceId"] as? String == pending.deviceId)
                #expect((body["aps"] as? [String: Any])?["content-available"] as? Int == 1)
                let challenge = try #require(body["securepushChallenge"] as? String)

                // Until then, alice keeps the phone: her sends reach it, bob's reach nothing.
                let toAlice = try await backend.send(.init(recipientId: aliceId, payload: "for alice"))
                #expect(toAlice.deliveries.map(\.deviceId) == [alicesPhone])
                #expect(try await backend.send(.init(recipientId: bobId, payload: "for bob")).deliveries.isEmpty)

                // A guess is refused naming challenge; the pushed challenge, handed to bob's SDK as the app
                // received it, moves the phone to bob.
                await #expect {
                    _ = try await bob.verify(deviceId: pending.deviceId, challenge: "wrong-guess")
                } throws: { ($0 as? RPCError)?.data == .object(["field": "challenge"]) }
                // Were the push to reach a device signed in as alice (whose device this still is), her SDK would
                // ignore it: bob's pending device is not hers, and her asking costs bob no try.
                let asAlice = try await alice.receive(
                    push: ["securepushChallenge": challenge, "securepushDeviceId": pending.deviceId])
                #expect(asAlice == .other)
                let received = try await bob.receive(
                    push: ["securepushChallenge": challenge, "securepushDeviceId": pending.deviceId])
                #expect(received == .verified(deviceId: pending.deviceId))
                #expect(try await alice.devices().isEmpty)
                #expect(try await bob.devices().map(\.deviceId) == [pending.deviceId])
                let toBob = try await backend.send(.init(recipientId: bobId, payload: "for bob"))
                #expect(toBob.deliveries.map(\.deviceId) == [pending.deviceId])
                #expect(try await backend.send(.init(recipientId: aliceId, payload: "again")).deliveries.isEmpty)
                // A notification id pushed through APNs is recognised as one.
                let asPushed = try await bob.receive(push: ["secureId": toBob.notificationId])
                #expect(asPushed == .notification(id: toBob.notificationId, traceparent: nil))
            }
        }
    }
}
