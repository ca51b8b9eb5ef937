import Crypto
import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

/// Proof of possession for platform tokens (issue 24): another user's APNs, FCM or WNS token does not move its device
/// until the challenge pushed to the token is answered with `devices.verify`.
@Suite("devices.verify: a known push token does not move a device")
struct DeviceVerificationTests {
    /// A harness with a hand-moved clock and a scripted provider for `platform` that accepts every push.
    private static func harness(_ platform: Platform = .apns) async throws -> (DispatchHarness, ScriptedProvider) {
        let provider = ScriptedProvider(platform: platform, script: Array(repeating: .sent, count: 20))
        let harness = try await DispatchHarness(providers: [provider], clock: TestClock())
        return (harness, provider)
    }

    private func register(_ harness: DispatchHarness, _ user: String, _ platform: Platform = .apns, token: String)
        async throws -> Devices.Register.Result
    {
        try await harness.client.call(
            Devices.Register.self, .init(platform: platform, token: token, name: "\(user)'s phone"),
            token: try await harness.signer.userToken(user))
    }

    private func verify(_ harness: DispatchHarness, _ user: String, _ deviceId: String, _ challenge: String)
        async throws -> Devices.Verify.Result
    {
        try await harness.client.call(
            Devices.Verify.self, .init(deviceId: deviceId, challenge: challenge),
            token: try await harness.signer.userToken(user))
    }

    private func list(_ harness: DispatchHarness, _ user: String) async throws -> [Devices.DeviceInfo] {
        try await harness.client.call(Devices.List.self, Empty(), token: try await harness.signer.userToken(user))
            .devices
    }

    @Test(
        "another user's token gives a pending device and a pushed challenge; the owner keeps it until it is answered",
        arguments: [Platform.apns, .fcm, .wns])
    func pendingUntilVerified(platform: Platform) async throws {
        let (harness, provider) = try await Self.harness(platform)
        let aliceDevice = try await register(harness, "alice", platform, token: "tok-1").deviceId
        let queued = try await harness.send(to: "alice")

        let pending = try await register(harness, "mallory", platform, token: "tok-1")
        #expect(pending.verification == "pending")
        #expect(pending.deviceId != aliceDevice)
        // The challenge went to the token (to whoever holds the device), never to the caller.
        let job = try #require(provider.jobs.last)
        let challenge = try #require(job.challenge)
        #expect(challenge.count == 22)
        #expect(Data(base64URLEncoded: challenge)?.count == 16)
        #expect(job.deviceToken == "tok-1")
        #expect(job.deviceID == pending.deviceId)
        #expect(job.notificationID.isEmpty)

        // Nothing changed for alice: her device, her queued id.
        #expect(try await list(harness, "alice").map(\.deviceId) == [aliceDevice])
        #expect(try await list(harness, "alice").first?.active == true)
        #expect(try await harness.status(queued.notificationId).deliveries.first?.status == .queued)
        let malloryDevices = try await list(harness, "mallory")
        #expect(malloryDevices.map(\.deviceId) == [pending.deviceId])
        #expect(malloryDevices.first?.active == false)
        #expect(malloryDevices.first?.verification == "pending")
        // A send to mallory reaches no device: the pending one is never targeted.
        #expect(try await harness.send(to: "mallory").deliveries.isEmpty)

        // A wrong answer is -32602 naming challenge; someone else answering is -32004.
        let wrong = await expectRPCError {
            _ = try await verify(harness, "mallory", pending.deviceId, "AAAAAAAAAAAAAAAAAAAAAA")
        }
        #expect(wrong?.code == RPCErrorCode.invalidParams)
        #expect(wrong?.data == .object(["field": "challenge"]))
        #expect(wrong?.message.contains("4 tries left") == true)
        let notTheirs = await expectRPCError { _ = try await verify(harness, "alice", pending.deviceId, challenge) }
        #expect(notTheirs?.code == RPCErrorCode.notFound)
        #expect(try await list(harness, "alice").map(\.deviceId) == [aliceDevice])

        // The right answer moves the device under the pending id; alice's queued id never reaches the new owner.
        #expect(try await verify(harness, "mallory", pending.deviceId, challenge).deviceId == pending.deviceId)
        #expect(try await list(harness, "alice").isEmpty)
        let moved = try await list(harness, "mallory")
        #expect(moved.map(\.deviceId) == [pending.deviceId])
        #expect(moved.first?.active == true)
        #expect(moved.first?.verification == nil)
        #expect(try await harness.status(queued.notificationId).deliveries.first?.status == .failed)
        #expect(try await harness.count("device_revocation_outbox") == 1)
        // A challenge answers once.
        let again = await expectRPCError { _ = try await verify(harness, "mallory", pending.deviceId, challenge) }
        #expect(again?.code == RPCErrorCode.notFound)
        #expect(try await harness.count("device_verification") == 0)

        // The audit trail has each step, the device and its owners only as pseudonyms under each owner's key.
        try await harness.components.audit.flush()
        let bodies = try await harness.components.database.sql.read(
            "SELECT type, body FROM dispatch_audit_entry ORDER BY sequence", []
        ).map { (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self)) }
        let types = bodies.map(\.0)
        #expect(types.filter { $0 == "devices.registered" }.count == 2)
        #expect(types.filter { $0 == "devices.verification_failed" }.count == 3)
        #expect(types.contains("devices.verified"))
        let movedEntry = try #require(bodies.first { $0.0 == "devices.moved" }?.1)
        let pseudonym = { (id: String, owner: String) in
            "u:"
                + Data(
                    HMAC<SHA256>.authenticationCode(
                        for: Data(id.utf8), using: SymmetricKey(data: FakeAuth.auditKey(of: owner)))
                ).base64URLEncodedString()
        }
        #expect(movedEntry.contains(#""device":"\#(pseudonym(pending.deviceId, "mallory"))""#))
        #expect(movedEntry.contains(#""previousUser":"\#(pseudonym("alice", "alice"))""#))
        for body in bodies.map(\.1) {
            for clear in [aliceDevice, pending.deviceId, "tok-1", #""alice""#, #""mallory""#] {
                #expect(!body.contains(clear), "\(clear) in \(body)")
            }
        }
    }

    @Test("the fifth wrong answer ends the pending device; the right one after it is -32004")
    func fiveTries() async throws {
        let (harness, provider) = try await Self.harness()
        _ = try await register(harness, "alice", token: "abcd")
        let pending = try await register(harness, "mallory", token: "abcd")
        let challenge = try #require(provider.jobs.last?.challenge)
        for left in (0..<DeviceVerification.maxTries).reversed() {
            let error = await expectRPCError {
                _ = try await verify(harness, "mallory", pending.deviceId, "guess-\(left)")
            }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.data == .object(["field": "challenge"]))
            #expect(
                error?.message.contains(left == 0 ? "last of 5 tries" : "\(left) tries left") == true,
                "\(error?.message ?? "")")
        }
        let late = await expectRPCError { _ = try await verify(harness, "mallory", pending.deviceId, challenge) }
        #expect(late?.code == RPCErrorCode.notFound)
        #expect(try await list(harness, "mallory").isEmpty)
        #expect(try await list(harness, "alice").count == 1)
        // An oversized answer is refused before any lookup.
        let long = await expectRPCError {
            _ = try await verify(harness, "mallory", pending.deviceId, String(repeating: "A", count: 65))
        }
        #expect(long?.data == .object(["field": "challenge"]))
    }

    @Test("an answer after 10 minutes is refused naming challenge; registering again pushes a fresh challenge")
    func expiry() async throws {
        let (harness, provider) = try await Self.harness()
        let clock = try #require(harness.clock as? TestClock)
        _ = try await register(harness, "alice", token: "abcd")
        let first = try await register(harness, "mallory", token: "abcd")
        let firstChallenge = try #require(provider.jobs.last?.challenge)
        // Registering again within 30 s pushes nothing new; the pending device is the same.
        clock.advance(by: 10)
        #expect(try await register(harness, "mallory", token: "abcd").deviceId == first.deviceId)
        #expect(provider.jobs.count == 1)
        // After 30 s a fresh challenge replaces the old one.
        clock.advance(by: 30)
        #expect(try await register(harness, "mallory", token: "abcd").deviceId == first.deviceId)
        #expect(provider.jobs.count == 2)
        let secondChallenge = try #require(provider.jobs.last?.challenge)
        #expect(secondChallenge != firstChallenge)
        let stale = await expectRPCError { _ = try await verify(harness, "mallory", first.deviceId, firstChallenge) }
        #expect(stale?.data == .object(["field": "challenge"]))

        clock.advance(by: TimeInterval(DeviceVerification.window.components.seconds))
        let expired = await expectRPCError { _ = try await verify(harness, "mallory", first.deviceId, secondChallenge) }
        #expect(expired?.code == RPCErrorCode.invalidParams)
        #expect(expired?.message.contains("expired") == true)
        #expect(try await list(harness, "mallory").isEmpty)
        #expect(try await list(harness, "alice").count == 1)

        // A new registration is a new pending device with a new challenge, which works.
        let second = try await register(harness, "mallory", token: "abcd")
        #expect(second.deviceId != first.deviceId)
        let fresh = try #require(provider.jobs.last?.challenge)
        #expect(try await verify(harness, "mallory", second.deviceId, fresh).deviceId == second.deviceId)
        #expect(try await list(harness, "alice").isEmpty)
    }

    @Test("one challenge per token per 30 s, whoever registers it, unregisters the pending device and registers again")
    func challengeRate() async throws {
        let (harness, provider) = try await Self.harness()
        let clock = try #require(harness.clock as? TestClock)
        _ = try await register(harness, "alice", token: "abcd")
        let first = try await register(harness, "mallory", token: "abcd")
        #expect(provider.jobs.count == 1)
        _ = try await harness.client.call(
            Devices.Unregister.self, .init(deviceId: first.deviceId),
            token: try await harness.signer.userToken("mallory"))
        let again = try await register(harness, "mallory", token: "abcd")
        #expect(again.verification == "pending")
        #expect(again.deviceId != first.deviceId)
        let eves = try await register(harness, "eve", token: "abcd")
        #expect(eves.verification == "pending")
        #expect(provider.jobs.count == 1, "no second challenge within 30 s")
        clock.advance(by: 31)
        _ = try await register(harness, "eve", token: "abcd")
        #expect(provider.jobs.count == 2)
        #expect(provider.jobs.last?.deviceID == eves.deviceId)
        // The challenge pushed to the token names the pending device it is for.
        let challenge = try #require(provider.jobs.last?.challenge)
        let notMallorys = await expectRPCError { _ = try await verify(harness, "mallory", eves.deviceId, challenge) }
        #expect(notMallorys?.code == RPCErrorCode.notFound)
        #expect(try await verify(harness, "eve", eves.deviceId, challenge).deviceId == eves.deviceId)
    }

    @Test(
        "a pending device can be unregistered by its owner; web push subscriptions and direct tokens are not challenged"
    )
    func unregisterAndUnchallenged() async throws {
        let (harness, provider) = try await Self.harness(.webpush)
        let subscription = #"{"endpoint":"https://push.example/x"}"#
        let aliceSub = try await register(harness, "alice", .webpush, token: subscription)
        let moved = try await register(harness, "bob", .webpush, token: subscription)
        #expect(moved.verification == nil)
        #expect(moved.deviceId == aliceSub.deviceId)
        let aliceDirect = try await register(harness, "alice", .direct, token: "laptop")
        let bobDirect = try await register(harness, "bob", .direct, token: "laptop")
        #expect(bobDirect.verification == nil)
        #expect(bobDirect.deviceId != aliceDirect.deviceId)
        #expect(provider.jobs.isEmpty)

        let (apnsHarness, _) = try await Self.harness()
        _ = try await register(apnsHarness, "alice", token: "abcd")
        let pending = try await register(apnsHarness, "bob", token: "abcd")
        _ = try await apnsHarness.client.call(
            Devices.Unregister.self, .init(deviceId: pending.deviceId),
            token: try await apnsHarness.signer.userToken("bob"))
        #expect(try await list(apnsHarness, "bob").isEmpty)
        #expect(try await apnsHarness.count("device_verification") == 0)
        #expect(try await list(apnsHarness, "alice").count == 1)
    }
}
