import Foundation
import MetricsTestKit
import SharedModels
import StoreService
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

@Suite("notification-store retention")
struct StoreRetentionTests {
    @Test("receipts outlive their notification by SECUREPUSH_RETAIN_RECEIPTS, then go, counted by kind")
    func receiptRetention() async throws {
        let metrics = TestMetrics()
        var configuration = StoreConfiguration()
        configuration.receiptRetentionSeconds = 3_600
        let harness = try await StoreHarness(configuration: configuration, metrics: metrics)
        let stored = try await harness.put(to: "alice", ttlSeconds: 60)
        let device = "0b5e3c1a-7d2f-4e8a-9c6b-1f2e3d4c5b6a"
        _ = try await harness.client.call(
            Store.Get.self, .init(notificationId: stored.notificationId, deviceId: device),
            token: try await harness.signer.userToken("alice"))
        harness.clock.advance(by: 61)
        try await harness.components.store.purgeExpired()
        #expect(try await harness.components.store.receipts(id: stored.notificationId).map(\.deviceId) == [device])
        harness.clock.advance(by: 3_600)
        try await harness.components.store.purgeExpired()
        #expect(try await harness.components.store.receipts(id: stored.notificationId).isEmpty)
        #expect(
            try metrics.expectCounter("securepush_retention_purged_total", [("kind", "receipts")]).totalValue == 1)
    }
}
