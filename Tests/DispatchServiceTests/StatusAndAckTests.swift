import DispatchService
import Foundation
import MetricsTestKit
import SharedModels
import Testing

@Suite("push.status, devices.ack and expiry")
struct StatusAndAckTests {
    @Test("push.status shows each delivery to the sending client; anyone else gets the same -32004 as for a missing id")
    func statusOnlyForSender() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let sent = try await harness.send(to: "alice", as: "shop")

        let status = try await harness.status(sent.notificationId, as: "shop")
        #expect(status.traceId == nil, "push-dispatch does not trace here: no trace id")
        #expect(status.notificationId == sent.notificationId)
        #expect(status.deliveries.count == 1)
        let delivery = try #require(status.deliveries.first)
        #expect(delivery.deviceId == device)
        #expect(delivery.platform == .direct)
        #expect(delivery.status == .queued)
        #expect(delivery.attempts == 0)
        #expect(delivery.lastError == nil)

        let otherClient = await expectRPCError { _ = try await harness.status(sent.notificationId, as: "bank") }
        let missing = await expectRPCError { _ = try await harness.status(UUID().uuidString, as: "shop") }
        #expect(otherClient?.code == RPCErrorCode.notFound)
        #expect(otherClient == missing)
        let userToken = try await harness.signer.userToken("alice")
        let asUser = await expectRPCError {
            _ = try await harness.client.call(
                Push.Status.self, .init(notificationId: sent.notificationId), token: userToken)
        }
        #expect(asUser?.code == RPCErrorCode.forbidden)
    }

    @Test("an acknowledged id leaves the device's pending list; the others stay, in order")
    func ackRemovesFromPending() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let first = try await harness.send(to: "alice").notificationId
        let second = try await harness.send(to: "alice").notificationId
        let third = try await harness.send(to: "alice").notificationId
        #expect(try await harness.pendingIDs(device) == [first, second, third])

        let alice = try await harness.signer.userToken("alice")
        _ = try await harness.client.call(
            Devices.Ack.self, .init(deviceId: device, notificationId: second), token: alice)
        #expect(try await harness.pendingIDs(device) == [first, third])
        // Acknowledging twice is harmless.
        _ = try await harness.client.call(
            Devices.Ack.self, .init(deviceId: device, notificationId: second), token: alice)
        #expect(try await harness.pendingIDs(device) == [first, third])
        #expect(try await harness.status(second).deliveries.map(\.status) == [.acknowledged])
        #expect(try await harness.status(first).deliveries.map(\.status) == [.queued])
    }

    @Test("acknowledging on someone else's device or an id the device never got is -32004")
    func ackRefusals() async throws {
        let harness = try await DispatchHarness()
        let alicesDevice = try await harness.registerDevice(user: "alice")
        let bobsDevice = try await harness.registerDevice(user: "bob")
        let sent = try await harness.send(to: "alice").notificationId
        let bob = try await harness.signer.userToken("bob")

        let notYourDevice = await expectRPCError {
            _ = try await harness.client.call(
                Devices.Ack.self, .init(deviceId: alicesDevice, notificationId: sent), token: bob)
        }
        #expect(notYourDevice?.code == RPCErrorCode.notFound)
        let notYourNotification = await expectRPCError {
            _ = try await harness.client.call(
                Devices.Ack.self, .init(deviceId: bobsDevice, notificationId: sent), token: bob)
        }
        #expect(notYourNotification?.code == RPCErrorCode.notFound)
        #expect(try await harness.pendingIDs(alicesDevice) == [sent])
    }

    @Test("deliveries past the notification's expiry are expired, not pending")
    func expiry() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let shortLived = try await harness.send(to: "alice", ttlSeconds: 60).notificationId
        let longLived = try await harness.send(to: "alice", ttlSeconds: 3600).notificationId

        harness.clock.advance(by: 59)
        #expect(try await harness.pendingIDs(device) == [shortLived, longLived])
        harness.clock.advance(by: 2)
        #expect(try await harness.pendingIDs(device) == [longLived])
        #expect(try await harness.status(shortLived).deliveries.map(\.status) == [.expired])
        #expect(try await harness.status(longLived).deliveries.map(\.status) == [.queued])
    }

    @Test("the expiry sweep marks expired deliveries and forgets sends a day after they expired")
    func sweep() async throws {
        let harness = try await DispatchHarness()
        _ = try await harness.registerDevice(user: "alice")
        let sent = try await harness.send(to: "alice", ttlSeconds: 60, idempotencyKey: "k").notificationId

        harness.clock.advance(by: 61)
        try await harness.components.pushes.expireAndPurge()
        #expect(try await harness.status(sent).deliveries.map(\.status) == [.expired])

        harness.clock.advance(by: 86_400)
        try await harness.components.pushes.expireAndPurge()
        #expect(try await harness.count("push_send") == 0)
        #expect(try await harness.count("delivery") == 0)
        #expect(try await harness.count("idempotency_key") == 0)
    }

    @Test(
        "SECUREPUSH_RETAIN_IDEMPOTENCY_KEYS and SECUREPUSH_RETAIN_DELIVERIES purge keys and sends on their own clocks, counted by kind"
    )
    func retention() async throws {
        let metrics = TestMetrics()
        var configuration = DispatchHarness.configuration()
        configuration.deliveryRetentionSeconds = 600
        configuration.idempotencyRetentionSeconds = 120
        let harness = try await DispatchHarness(configuration: configuration, metrics: metrics)
        _ = try await harness.registerDevice(user: "alice")
        let sent = try await harness.send(to: "alice", ttlSeconds: 3_600, idempotencyKey: "k").notificationId

        harness.clock.advance(by: 121)
        try await harness.components.pushes.expireAndPurge()
        #expect(try await harness.count("idempotency_key") == 0)
        #expect(try await harness.count("push_send") == 1)
        #expect(try await harness.status(sent).deliveries.count == 1)

        harness.clock.advance(by: 3_600 + 600)
        try await harness.components.pushes.expireAndPurge()
        #expect(try await harness.count("push_send") == 0)
        #expect(try await harness.count("delivery") == 0)
        func purged(_ kind: String) throws -> Int64 {
            try metrics.expectCounter("securepush_retention_purged_total", [("kind", kind)]).totalValue
        }
        #expect(try purged("idempotencyKeys") == 1)
        #expect(try purged("sends") == 1)
        #expect(try purged("deliveries") == 1)
    }
}
