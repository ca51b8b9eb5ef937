import DispatchService
import Foundation
import MetricsTestKit
import NIOCore
import NIOPosix
import RPCServer
import SharedModels
import TestSupport
import Testing

@Suite("push-dispatch metrics, and the RPC metrics and /metrics endpoint every service shares")
struct DispatchMetricsTests {
    /// Sends one notification to alice's two APNs devices through a provider answering `script` in order, and waits
    /// (bounded) until both deliveries reached a final status.
    static func sendToTwoAPNsDevices(answering script: [DeliveryOutcome], metrics: TestMetrics) async throws {
        let harness = try await DispatchHarness.remote([ScriptedProvider(script: script)], metrics: metrics)
        for token in ["a1a1", "b2b2"] {
            _ = try await harness.registerDevice(user: "alice", platform: .apns, token: token)
        }
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(
                try await eventually {
                    try await harness.status(sent).deliveries.allSatisfy {
                        [.sent, .failed, .deactivated].contains($0.status)
                    }
                })
        }
    }

    @Test("each provider attempt counts by result, and each delivery once by its platform and final status")
    func attemptsAndDeliveries() async throws {
        let metrics = TestMetrics()
        try await Self.sendToTwoAPNsDevices(answering: [.failed(reason: "BadDeviceToken"), .sent], metrics: metrics)
        func count(_ label: String, _ dimensions: [(String, String)]) throws -> Int64 {
            try metrics.expectCounter(label, dimensions).totalValue
        }
        for status in ["sent", "failed"] {
            #expect(
                try count(
                    "securepush_provider_attempts_total",
                    [("platform", "apns"), ("app", "default"), ("result", status)]) == 1)
            #expect(
                try count(
                    "securepush_deliveries_total", [("platform", "apns"), ("app", "default"), ("status", status)]) == 1)
        }
        #expect(
            try count(
                "securepush_deliveries_total", [("platform", "apns"), ("app", "default"), ("status", "deactivated")])
                == 0)
    }

    @Test("a device a provider reports gone counts once as deactivated, by platform and a bounded reason")
    func deactivations() async throws {
        let metrics = TestMetrics()
        try await Self.sendToTwoAPNsDevices(
            answering: [.deactivate(reason: "BadDeviceToken"), .sent], metrics: metrics)
        func deactivated(_ reason: String) throws -> Int64 {
            try metrics.expectCounter(
                "securepush_devices_deactivated_total", [("platform", "apns"), ("app", "default"), ("reason", reason)]
            ).totalValue
        }
        #expect(try deactivated("bad_token") == 1)
        #expect(try deactivated("unregistered") == 0)
    }

    @Test("the queue metrics show how many jobs wait per platform and how old the oldest send is")
    func queueMetrics() async throws {
        let metrics = TestMetrics()
        let provider = ScriptedProvider(script: [.sent])
        let harness = try await DispatchHarness.remote([provider], metrics: metrics)
        for token in ["a1a1", "b2b2"] {
            _ = try await harness.registerDevice(user: "alice", platform: .apns, token: token)
        }
        let sentAt = harness.clock.now
        _ = try await harness.send(to: "alice")
        harness.clock.advance(by: 90)
        _ = try await harness.send(to: "alice")
        // No worker runs: all four jobs wait.
        let now = harness.clock.now
        let statistics = try await SQLDeliveryRepository(database: harness.components.database.sql).queueStatistics(
            now: now)
        #expect(statistics[.apns]?.depth == 4)
        // The harness clock runs (plus the hand-made 90 s): the first send was accepted just after `sentAt`.
        let oldest = try #require(statistics[.apns]?.oldestSentAt)
        #expect(oldest.timeIntervalSince(sentAt) > -0.001 && oldest.timeIntervalSince(sentAt) < 5)
        #expect(statistics[.direct] == nil)

        DispatchMetrics(factory: metrics).recordQueue(statistics, platforms: [.apns, .direct], now: now)
        func meter(_ label: String, _ platform: String) throws -> Double? {
            try metrics.expectMeter(label, [("platform", platform)]).lastValue
        }
        #expect(try meter("securepush_delivery_queue_depth", "apns") == 4)
        let age = try #require(try meter("securepush_delivery_queue_oldest_age_seconds", "apns"))
        #expect(age >= 85 && age <= 91)
        #expect(try meter("securepush_delivery_queue_depth", "direct") == 0)
        #expect(try meter("securepush_delivery_queue_oldest_age_seconds", "direct") == 0)
    }

    @Test("providers' reason texts map onto a bounded set of deactivation reasons")
    func deactivationReasons() {
        let cases: [(DeliveryOutcome, String?)] = [
            (.deactivate(reason: "Unregistered"), "unregistered"),
            (.deactivate(reason: "UNREGISTERED"), "unregistered"),
            (.deactivate(reason: "HTTP 404"), "unregistered"), (.deactivate(reason: "ExpiredToken"), "expired"),
            (.deactivate(reason: "HTTP 410: channel expired"), "expired"),
            (.deactivate(reason: "DeviceTokenNotForTopic"), "bad_token"),
            (.deactivate(reason: "anything new"), "other"),
            (.deactivateIfRegisteredBefore(Date(), reason: "Unregistered"), "unregistered"),
            (.sent, nil), (.failed(reason: "Unregistered"), nil),
        ]
        for (outcome, reason) in cases { #expect(outcome.deactivationReason == reason, "\(outcome)") }
    }

    @Test("an open event stream is counted while open, and each id written counts as an event and a direct delivery")
    func directStreams() async throws {
        let metrics = TestMetrics()
        let harness = try await DispatchHarness(
            configuration: DispatchHarness.configuration(keepalive: .seconds(60)), metrics: metrics)
        let device = try await harness.registerDevice(user: "alice")
        _ = try await harness.send(to: "alice")
        let alice = try await harness.signer.userToken("alice")
        try await RunningDispatch.with(harness) { port in
            let curl = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            #expect(await curl.waitUntil { $0.ids.count >= 1 })
            #expect(try metrics.expectMeter("securepush_direct_streams_open").lastValue == 1)
            curl.stop()
        }
        // The stream ended with the service (a gone client is noticed at the next write): no longer counted.
        #expect(try metrics.expectMeter("securepush_direct_streams_open").lastValue == 0)
        #expect(try metrics.expectCounter("securepush_direct_events_written_total").totalValue == 1)
        #expect(
            try metrics.expectCounter(
                "securepush_deliveries_total", [("platform", "direct"), ("app", "default"), ("status", "sent")]
            )
            .totalValue == 1)
    }

    @Test("RPC calls count by service, method and code; any unknown method name is counted as `unknown`")
    func rpcCallsByMethodAndCode() async throws {
        let metrics = TestMetrics()
        let harness = try await DispatchHarness()
        try await RunningDispatch.with(harness, metrics: ServiceMetrics(factory: metrics)) { port in
            for name in ["made-up.\(UUID())", "another.\(UUID())"] {
                let call = #"{"jsonrpc":"2.0","id":1,"method":"\#(name)"}"#
                let answer = try await curlGet(
                    "http://127.0.0.1:\(port)/rpc", token: nil,
                    extra: ["-H", "content-type: application/json", "-d", call])
                #expect(answer.body.contains("-32601"))
            }
            let batch = #"[{"jsonrpc":"2.0","id":1,"method":"push.status","params":{"notificationId":"x"}}, 7]"#
            _ = try await curlGet(
                "http://127.0.0.1:\(port)/rpc", token: nil,
                extra: ["-H", "content-type: application/json", "-d", batch])
            _ = try await curlGet(
                "http://127.0.0.1:\(port)/rpc", token: nil, extra: ["-H", "content-type: application/json", "-d", "{"])
        }
        func calls(_ method: String, _ code: String) throws -> Int64 {
            try metrics.expectCounter(
                "securepush_rpc_requests_total", [("service", "push-dispatch"), ("method", method), ("code", code)]
            ).totalValue
        }
        #expect(try calls("unknown", "-32601") == 2)
        #expect(try calls("push.status", "-32001") == 1)
        #expect(try calls("invalid", "-32600") == 1)
        #expect(try calls("invalid", "-32700") == 1)
        // Each method's `ok` series exists from the start (made up front, so a success takes no lock); the `unknown`
        // and `invalid` labels never succeed and have none.
        #expect(try calls("push.send", "ok") == 0)
        #expect(throws: (any Error).self) { try calls("unknown", "ok") }
        #expect(metrics.counters.allSatisfy { !$0.dimensions.contains { $0.1.contains("made-up") } })
        let timer = try metrics.expectTimer(
            "securepush_rpc_request_duration_seconds", [("service", "push-dispatch"), ("method", "push.status")])
        #expect(timer.values.count == 1)
        #expect(
            try metrics.expectCounter("securepush_rpc_request_bytes_total", [("service", "push-dispatch")]).totalValue
                > 100)
        #expect(
            try metrics.expectCounter("securepush_rpc_response_bytes_total", [("service", "push-dispatch")]).totalValue
                > 100)
        let inFlight = try metrics.expectMeter("securepush_rpc_requests_in_flight", [("service", "push-dispatch")])
        #expect(inFlight.values.contains(1))
        #expect(inFlight.lastValue == 0)
    }

    @Test("GET /metrics serves the Prometheus text format on the service port")
    func metricsOnServicePort() async throws {
        let harness = try await DispatchHarness()
        try await RunningDispatch.with(harness, metrics: .prometheus()) { port in
            let call = #"{"jsonrpc":"2.0","id":1,"method":"nope"}"#
            _ = try await curlGet(
                "http://127.0.0.1:\(port)/rpc", token: nil, extra: ["-H", "content-type: application/json", "-d", call])
            let scraped = try await curlGet("http://127.0.0.1:\(port)/metrics", token: nil)
            #expect(scraped.status == 200)
            #expect(scraped.body.contains("# TYPE securepush_rpc_requests_total counter"))
            #expect(
                scraped.body.contains(
                    #"securepush_rpc_requests_total{service="push-dispatch",method="unknown",code="-32601"} 1"#))
            #expect(scraped.body.contains("# TYPE securepush_process_open_fds gauge"))
        }
    }

    @Test("with SECUREPUSH_METRICS_PORT, /metrics is served there over plain HTTP/1.1 and not on the service port")
    func metricsOnItsOwnPort() async throws {
        var configuration = DispatchHarness.configuration()
        let metricsPort = try await freePort()
        configuration.server.metricsPort = metricsPort
        let harness = try await DispatchHarness(configuration: configuration)
        try await RunningDispatch.with(harness, metrics: .prometheus()) { port in
            #expect(
                await eventually {
                    (try? await curlGet("http://127.0.0.1:\(metricsPort)/metrics", token: nil, http2: false))?.status
                        == 200
                })
            let scraped = try await curlGet("http://127.0.0.1:\(metricsPort)/metrics", token: nil, http2: false)
            #expect(scraped.body.contains("# TYPE securepush_rpc_requests_in_flight gauge"))
            #expect(try await curlGet("http://127.0.0.1:\(port)/metrics", token: nil).status == 404)
        }
    }

    /// A port free at this moment: bound to port 0 on loopback, read, and released.
    private func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        return try #require(port)
    }
}
