import Foundation
import SecurePushClient
import TestSupport
import Testing

@Suite("GET /metrics on every service, read by the reference Prometheus parser")
struct MetricsEndpointTests {
    /// What each service must expose after a send and a fetch: family → (type, label names of its series).
    static let expected: [String: [String: (type: String, labels: Set<String>)]] = [
        "auth": [
            "securepush_rpc_requests": ("counter", ["service", "method", "code"]),
            "securepush_rpc_request_duration_seconds": ("histogram", ["service", "method"]),
            "securepush_rpc_requests_in_flight": ("gauge", ["service"]),
            "securepush_auth_logins": ("counter", ["outcome"]),
            "securepush_auth_client_tokens": ("counter", ["outcome"]),
            "securepush_auth_rate_limited": ("counter", ["limit"]),
            "securepush_auth_refresh_reuse": ("counter", []),
            "securepush_process_resident_memory_bytes": ("gauge", []),
            "securepush_process_open_fds": ("gauge", []),
            "securepush_database_connections_in_use": ("gauge", ["backend"]),
            "securepush_database_connections_waiting": ("gauge", ["backend"]),
        ],
        "notification-store": [
            "securepush_rpc_requests": ("counter", ["service", "method", "code"]),
            "securepush_store_notifications_stored": ("counter", []),
            "securepush_store_notifications_fetched": ("counter", []),
            "securepush_store_notifications_purged": ("counter", []),
            "securepush_store_fetches": ("counter", ["outcome"]),
            "securepush_process_open_fds": ("gauge", []),
            "securepush_database_connections_in_use": ("gauge", ["backend"]),
            "securepush_database_connections_waiting": ("gauge", ["backend"]),
        ],
        "push-dispatch": [
            "securepush_rpc_requests": ("counter", ["service", "method", "code"]),
            "securepush_deliveries": ("counter", ["platform", "app", "status"]),
            "securepush_direct_streams_open": ("gauge", []),
            "securepush_direct_events_written": ("counter", []),
            "securepush_delivery_latency_seconds": ("histogram", ["platform"]),
            "securepush_direct_ack_latency_seconds": ("histogram", []),
            "securepush_process_resident_memory_bytes": ("gauge", []),
            "securepush_database_connections_in_use": ("gauge", ["backend"]),
            "securepush_database_connections_waiting": ("gauge", ["backend"]),
        ],
    ]

    @Test(
        "after the story, each service's /metrics parses and has the expected names, types and label sets",
        .enabled(
            if: PrometheusExposition.isAvailable,
            "requires python3-prometheus-client: apt-get install python3-prometheus-client"))
    func scrapeAfterStory() async throws {
        let stack = try await TestStack.start(.cleartext)
        do {
            let demo = SecurePushDemo(
                endpoints: stack.endpoints, clientID: stack.backendClientID, clientSecret: stack.backendClientSecret)
            _ = try await demo.run(logger: stack.logger) { _ in }
            // A call to a method nobody has: counted under one `unknown` label, whatever its name.
            _ = try await Curl.run([
                "--http2-prior-knowledge", "-H", "content-type: application/json", "-d",
                #"{"jsonrpc":"2.0","id":1,"method":"attacker.chosen-\#(UUID())"}"#, "\(stack.stack.storeURL)/rpc",
            ])

            var scraped: [String: PrometheusExposition] = [:]
            for (service, url) in [
                ("auth", stack.stack.authURL), ("notification-store", stack.stack.storeURL),
                ("push-dispatch", stack.stack.dispatchURL),
            ] {
                let result = try await Curl.run(["--http2-prior-knowledge", "\(url)/metrics"])
                #expect(result.status == 200, "\(service)")
                let exposition = try await PrometheusExposition.parse(result.body)
                scraped[service] = exposition
                for (family, shape) in Self.expected[service] ?? [:] {
                    #expect(exposition.families[family]?.type == shape.type, "\(service) \(family)")
                    let sample = shape.type == "histogram" ? family + "_count" : nil
                    let counterSample = shape.type == "counter" ? family + "_total" : nil
                    let labels = exposition.labelNames(of: family, sample: sample ?? counterSample)
                    #expect(labels == [shape.labels], "\(service) \(family): \(labels)")
                }
                // Bounded labels only: no series is labelled with an id.
                for (name, family) in exposition.families {
                    for sample in family.samples {
                        for value in sample.labels.values {
                            #expect(UUID(uuidString: value) == nil, "\(service) \(name) carries an id: \(value)")
                        }
                    }
                }
                #expect(exposition.value("securepush_process_open_fds") > 0)
                #expect(exposition.value("securepush_process_resident_memory_bytes") > 1_000_000)
                // One series per gauge, for the backend the service runs on (background work may hold a connection
                // at the moment of the scrape, so only the bounds are certain).
                for gauge in ["securepush_database_connections_in_use", "securepush_database_connections_waiting"] {
                    let samples = exposition.families[gauge]?.samples ?? []
                    #expect(samples.map(\.labels) == [["backend": "sqlite"]], "\(service) \(gauge)")
                    #expect(samples.allSatisfy { (0...64).contains($0.value) }, "\(service) \(gauge)")
                }
            }

            let store = try #require(scraped["notification-store"])
            #expect(
                store.value(
                    "securepush_store_notifications_stored_total", family: "securepush_store_notifications_stored") == 1
            )
            #expect(
                store.value("securepush_store_fetches_total", family: "securepush_store_fetches", ["outcome": "ok"])
                    == 1)
            #expect(
                store.value(
                    "securepush_rpc_requests_total", family: "securepush_rpc_requests",
                    ["service": "notification-store", "method": "store.put", "code": "ok"]) == 1)
            #expect(
                store.value(
                    "securepush_rpc_requests_total", family: "securepush_rpc_requests",
                    ["method": "unknown", "code": "-32601"]) == 1)
            let auth = try #require(scraped["auth"])
            #expect(
                auth.value("securepush_auth_logins_total", family: "securepush_auth_logins", ["outcome": "ok"]) >= 1)
            #expect(
                auth.value(
                    "securepush_auth_client_tokens_total", family: "securepush_auth_client_tokens", ["outcome": "ok"])
                    >= 1)
            let dispatch = try #require(scraped["push-dispatch"])
            #expect(
                dispatch.value(
                    "securepush_deliveries_total", family: "securepush_deliveries",
                    ["platform": "direct", "app": "default", "status": "sent"]) >= 1)
            #expect(
                dispatch.value(
                    "securepush_rpc_request_duration_seconds_count", family: "securepush_rpc_request_duration_seconds",
                    ["method": "push.send"]) == 1)
            // The demo's one send was written to its device's stream once, and acknowledged once.
            #expect(
                dispatch.value(
                    "securepush_delivery_latency_seconds_count", family: "securepush_delivery_latency_seconds",
                    ["platform": "direct"]) == 1)
            #expect(
                dispatch.value(
                    "securepush_direct_ack_latency_seconds_count", family: "securepush_direct_ack_latency_seconds")
                    == 1)
            // Push latency buckets, up to minutes (not the RPC defaults that stop at 10 s).
            #expect(
                dispatch.value(
                    "securepush_delivery_latency_seconds_bucket", family: "securepush_delivery_latency_seconds",
                    ["platform": "direct", "le": "300.0"]) == 1)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
