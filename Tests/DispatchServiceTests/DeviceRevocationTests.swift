import DispatchService
import Foundation
import MetricsTestKit
import SharedModels
import TestSupport
import Testing

/// Device changes reach the store as `store.revokeDevices` (issue 24): through an outbox written with the change and
/// sent until the store answers.
@Suite("push-dispatch: device revocations reach the store")
struct DeviceRevocationTests {
    private let sealed = SealedSendTests()

    @Test("unregister, re-key and move each queue a revocation; re-registering with the same key does not")
    func changesThatRevoke() async throws {
        let apns = ScriptedProvider(platform: .apns, script: [.sent])
        let harness = try await DispatchHarness.remote([apns])
        let key = SealedSendTests.publicKey()
        let laptop = try await sealed.register(harness, user: "alice", publicKey: key, token: "laptop")
        let phone = try await sealed.register(harness, user: "alice", publicKey: key, token: "phone")
        let tablet = try await registerAPNs(harness, user: "alice", publicKey: key, token: "7ab1e7")
        // The same registration again (same owner, same key) revokes nothing.
        _ = try await sealed.register(harness, user: "alice", publicKey: key, token: "laptop")
        #expect(try await harness.components.revocations.sendAvailable() == false)
        #expect(harness.store.revocations.isEmpty)

        _ = try await harness.client.call(
            Devices.Unregister.self, .init(deviceId: laptop), token: try await harness.signer.userToken("alice"))
        _ = try await sealed.register(harness, user: "alice", publicKey: SealedSendTests.publicKey(), token: "phone")
        // Bob proves he holds alice's tablet (the challenge pushed to its token) and it moves to him.
        let bobs = try await registerAPNs(harness, user: "bob", publicKey: key, token: "7ab1e7")
        _ = try await harness.client.call(
            Devices.Verify.self, .init(deviceId: bobs, challenge: try #require(apns.jobs.last?.challenge)),
            token: try await harness.signer.userToken("bob"))
        try await harness.components.revocations.sendAvailable()
        let sent = try #require(harness.store.revocations.first)
        #expect(Set(sent.deviceIds) == [laptop, phone, tablet])
        #expect(sent.revocationId.flatMap(UUID.init(uuidString:)) != nil)
        #expect(try await harness.count("device_revocation_outbox") == 0)
        // Nothing left to send.
        #expect(try await harness.components.revocations.sendAvailable() == false)
        #expect(harness.store.revocations.count == 1)
    }

    private func registerAPNs(_ harness: DispatchHarness, user: String, publicKey: String, token: String)
        async throws -> String
    {
        try await harness.client.call(
            Devices.Register.self, .init(platform: .apns, token: token, publicKey: publicKey),
            token: try await harness.signer.userToken(user)
        ).deviceId
    }

    @Test("while the store is down revocations wait (and are counted); when it is back they are sent, with one id")
    func storeDown() async throws {
        let metrics = TestMetrics()
        let harness = try await DispatchHarness(metrics: metrics)
        let device = try await sealed.register(
            harness, user: "alice", publicKey: SealedSendTests.publicKey(), token: "t")
        harness.store.setMode(.unreachable)
        _ = try await harness.client.call(
            Devices.Unregister.self, .init(deviceId: device), token: try await harness.signer.userToken("alice"))
        try await RunningWorkers.with([harness.components.revocations]) { () async throws in
            #expect(
                await eventually {
                    (try? metrics.expectMeter("securepush_device_revocations_pending").lastValue) == 1
                })
            #expect(try await harness.count("device_revocation_outbox") == 1)
            #expect(harness.store.revocations.isEmpty)
            harness.store.setMode(.up)
            // The sender backs off 1 s after its first failure, then 2 s: bounded wait.
            #expect(await eventually(timeout: .seconds(15)) { !harness.store.revocations.isEmpty })
            #expect(
                await eventually {
                    (try? metrics.expectMeter("securepush_device_revocations_pending").lastValue) == 0
                })
        }
        #expect(harness.store.revocations.map(\.deviceIds) == [[device]])
        #expect(try await harness.count("device_revocation_outbox") == 0)
    }

    @Test("a call whose answer was lost is sent again under the same revocationId")
    func retryKeepsItsID() async throws {
        let harness = try await DispatchHarness()
        let device = try await sealed.register(
            harness, user: "alice", publicKey: SealedSendTests.publicKey(), token: "t")
        _ = try await harness.client.call(
            Devices.Unregister.self, .init(deviceId: device), token: try await harness.signer.userToken("alice"))
        harness.store.setMode(.failing)
        await #expect(throws: (any Error).self) { try await harness.components.revocations.sendAvailable() }
        harness.store.setMode(.up)
        // A device revoked after the failed call travels in a new batch, the failed one keeps its id.
        let other = try await sealed.register(
            harness, user: "alice", publicKey: SealedSendTests.publicKey(), token: "u")
        _ = try await harness.client.call(
            Devices.Unregister.self, .init(deviceId: other), token: try await harness.signer.userToken("alice"))
        try await harness.components.revocations.sendAvailable()
        try await harness.components.revocations.sendAvailable()
        let calls = harness.store.revocations
        #expect(calls.map(\.deviceIds) == [[device], [other]])
        #expect(calls[0].revocationId != calls[1].revocationId)
    }

    @Test("a device a provider reports gone is revoked too")
    func deactivation() async throws {
        let provider = ScriptedProvider(script: [.deactivate(reason: "Unregistered")])
        let harness = try await DispatchHarness.remote([provider])
        let device = try await harness.client.call(
            Devices.Register.self,
            .init(platform: .apns, token: "d0d0", publicKey: SealedSendTests.publicKey()),
            token: try await harness.signer.userToken("alice")
        ).deviceId
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .deactivated))
        }
        try await harness.components.revocations.sendAvailable()
        #expect(harness.store.revocations.map(\.deviceIds) == [[device]])
    }
}
