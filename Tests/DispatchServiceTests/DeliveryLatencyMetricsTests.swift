import DispatchService
import Foundation
import MetricsTestKit
import SharedModels
import TestSupport
import Testing

/// Delivery and acknowledgement latency, measured from the send's creation time stored with it.
@Suite("Delivery and acknowledgement latency")
struct DeliveryLatencyMetricsTests {
    /// The latencies recorded in `label` for `dimensions`, in seconds (none when the timer was never made).
    static func seconds(_ metrics: TestMetrics, _ label: String, _ dimensions: [(String, String)] = []) -> [Double] {
        let timer = try? metrics.expectTimer(label, dimensions)
        return (timer?.values ?? []).map { Double($0) / 1e9 }
    }

    @Test("a remote delivery's latency runs from the send's creation to the provider's success; failures add nothing")
    func remoteDeliveryLatency() async throws {
        let metrics = TestMetrics()
        let harness = try await DispatchHarness.remote(
            [ScriptedProvider(script: [.failed(reason: "BadTopic"), .sent])], metrics: metrics)
        for token in ["a1a1", "b2b2"] {
            _ = try await harness.registerDevice(user: "alice", platform: .apns, token: token)
        }
        let sent = try await harness.send(to: "alice").notificationId
        // The worker measures with the service's clock: 42 s later by it, as if the queue had been that long.
        harness.clock.advance(by: 42)
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(
                try await eventually {
                    try await harness.status(sent).deliveries.allSatisfy { [.sent, .failed].contains($0.status) }
                })
        }
        let latencies = Self.seconds(metrics, DispatchMetrics.deliveryLatencyLabel, [("platform", "apns")])
        #expect(latencies.count == 1, "only the delivery that was sent: \(latencies)")
        #expect(latencies.allSatisfy { $0 >= 42 && $0 < 52 }, "\(latencies)")
    }

    @Test("a direct delivery's latency is measured at its first write to a stream, not at a re-send")
    func directDeliveryLatency() async throws {
        let metrics = TestMetrics()
        let harness = try await DispatchHarness(metrics: metrics)
        let device = try await harness.registerDevice(user: "alice")
        _ = try await harness.send(to: "alice")
        harness.clock.advance(by: 3)
        let alice = try await harness.signer.userToken("alice")
        try await RunningDispatch.with(harness) { port in
            let first = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            #expect(await first.waitUntil { $0.ids.count >= 1 })
            first.stop()
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 0 })
            // Not acknowledged: written again on the next connection.
            let again = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            defer { again.stop() }
            #expect(await again.waitUntil { $0.ids.count >= 1 })
        }
        #expect(try metrics.expectCounter("securepush_direct_events_written_total").totalValue == 2)
        #expect(Self.seconds(metrics, DispatchMetrics.deliveryLatencyLabel, [("platform", "direct")]) == [3])
    }

    @Test("a device's two streams both write a send's id; its delivery latency is measured once")
    func twoStreamsOneLatency() async throws {
        let metrics = TestMetrics()
        let harness = try await DispatchHarness(metrics: metrics)
        let device = try await harness.registerDevice(user: "alice")
        let alice = try await harness.signer.userToken("alice")
        try await RunningDispatch.with(harness) { port in
            let streams = try (0..<2).map { _ in try CurlStream(url: EventStreamTests.url(port, device), token: alice) }
            defer { for stream in streams { stream.stop() } }
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 2 })
            let sent = try await harness.send(to: "alice").notificationId
            for stream in streams { #expect(await stream.waitUntil { $0.ids == [sent] }) }
            // Both writes recorded (a stream counts its events once its record committed).
            #expect(
                await eventually {
                    (try? metrics.expectCounter("securepush_direct_events_written_total").totalValue) == 2
                })
            #expect(try await harness.status(sent).deliveries.only?.status == .sent)
        }
        #expect(Self.seconds(metrics, DispatchMetrics.deliveryLatencyLabel, [("platform", "direct")]).count == 1)
    }

    @Test("the direct acknowledgement latency runs from the send to the first devices.ack; a repeated ack adds nothing")
    func directAckLatency() async throws {
        let metrics = TestMetrics()
        let harness = try await DispatchHarness.remote([ScriptedProvider(script: [])], metrics: metrics)
        let direct = try await harness.registerDevice(user: "alice")
        let sent = try await harness.send(to: "alice").notificationId
        harness.clock.advance(by: 7)
        let alice = try await harness.signer.userToken("alice")
        for _ in 0..<2 {
            _ = try await harness.client.call(
                Devices.Ack.self, .init(deviceId: direct, notificationId: sent), token: alice)
        }
        let acks = Self.seconds(metrics, DispatchMetrics.directAckLatencyLabel)
        #expect(acks.count == 1)
        #expect(acks.allSatisfy { $0 >= 7 && $0 < 17 }, "\(acks)")

        // An APNs device's acknowledgement is not the direct channel's.
        let phone = try await harness.registerDevice(user: "bob", platform: .apns, token: "c3c3")
        let toBob = try await harness.send(to: "bob").notificationId
        let bob = try await harness.signer.userToken("bob")
        _ = try await harness.client.call(Devices.Ack.self, .init(deviceId: phone, notificationId: toBob), token: bob)
        #expect(Self.seconds(metrics, DispatchMetrics.directAckLatencyLabel).count == 1)
    }
}
