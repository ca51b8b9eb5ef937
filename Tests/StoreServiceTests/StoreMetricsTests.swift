import Foundation
import MetricsTestKit
import SharedModels
import Testing

@Suite("notification-store metrics")
struct StoreMetricsTests {
    @Test("store.put counts a stored notification; a refused put counts nothing")
    func storedCounts() async throws {
        let metrics = TestMetrics()
        let harness = try await StoreHarness(metrics: metrics)
        try await harness.put(to: "alice")
        _ = await rpcError { try await harness.put(to: "alice", payload: "") }
        #expect(try metrics.expectCounter("securepush_store_notifications_stored_total").totalValue == 1)
    }

    @Test("store.get counts by outcome, refusals included, and fetched only when the payload is returned")
    func fetchOutcomes() async throws {
        let metrics = TestMetrics()
        let harness = try await StoreHarness(metrics: metrics)
        let stored = try await harness.put(to: "alice")
        _ = try await harness.get(stored.notificationId, as: "alice")
        _ = await rpcError { try await harness.get(stored.notificationId, as: "mallory") }
        _ = await rpcError { try await harness.get("not-a-uuid", as: "alice") }
        _ = await rpcError {
            try await harness.client.call(Store.Get.self, .init(notificationId: stored.notificationId), token: nil)
        }
        func fetches(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter("securepush_store_fetches_total", [("outcome", outcome)]).totalValue
        }
        #expect(try fetches("ok") == 1)
        #expect(try fetches("not_found") == 1)
        #expect(try fetches("invalid") == 1)
        #expect(try fetches("unauthenticated") == 1)
        #expect(try metrics.expectCounter("securepush_store_notifications_fetched_total").totalValue == 1)
    }

    @Test("the purge counts the expired notifications it deletes")
    func purgedCounts() async throws {
        let metrics = TestMetrics()
        let harness = try await StoreHarness(metrics: metrics)
        try await harness.put(to: "alice", ttlSeconds: 60)
        try await harness.put(to: "bob", ttlSeconds: 60)
        try await harness.put(to: "bob", ttlSeconds: 3600)
        harness.clock.advance(by: 61)
        try await harness.components.store.purgeExpired()
        #expect(try metrics.expectCounter("securepush_store_notifications_purged_total").totalValue == 2)
    }
}
