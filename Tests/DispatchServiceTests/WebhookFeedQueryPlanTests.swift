import Foundation
import GRDB
import ServiceCore
import Testing

@testable import DispatchService

@Suite("The webhook feed reads only the rows events are made of")
struct WebhookFeedQueryPlanTests {
    @Test(
        "SQLite plans each of the feed's sources on its index (finished deliveries of clients with an endpoint, deactivated devices, sends by expiry), without a sort",
        arguments: WebhookEventFeed.Source.allCases)
    func sourceUsesItsIndex(source: WebhookEventFeed.Source) async throws {
        let database = try SQLiteDatabase.open(path: nil, migrator: DispatchMigrations.all.sqliteMigrator)
        let plan = try await database.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + source.query(.sqlite),
                arguments: [0, 1, 0, 0, source == .deliveries ? 0 : "", 500]
            ).map { $0["detail"] as String }
        }
        let index =
            switch source {
            case .deliveries: "delivery_finished_by_time"
            case .devices: "device_by_deactivation"
            case .expiries: "push_send_by_expiry"
            }
        #expect(plan.contains { $0.contains(index) }, "plan: \(plan)")
        // At most the ties of one time are sorted (the sends' expiry index is the send path's, and holds no id).
        #expect(!plan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") }, "plan: \(plan)")
        if source != .expiries { #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "plan: \(plan)") }
        #expect(!plan.contains { $0 == "SCAN d" || $0 == "SCAN delivery" || $0 == "SCAN device" }, "plan: \(plan)")
    }

    @Test("a job enters the feed's index only when its sending client has an endpoint")
    func onlyWebhookClientsJobsAreMarked() async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.allowedHosts = nil }
        _ = try await harness.registerDevice(user: "alice")
        _ = try await harness.send(to: "alice", as: "bank")
        _ = try await harness.createWebhook("https://hooks.bank.example/x", as: "shop")
        _ = try await harness.send(to: "alice", as: "bank")
        _ = try await harness.send(to: "alice", as: "shop")
        let marks = try await harness.components.sqlite!.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT push_send.client_id, delivery.webhook FROM delivery
                    JOIN push_send ON push_send.notification_id = delivery.notification_id ORDER BY delivery.sequence
                    """
            ).map { ($0[0] as String, $0[1] as Int?) }
        }
        #expect(marks.map(\.0) == ["bank", "bank", "shop"])
        #expect(marks.map(\.1) == [nil, nil, 1])
    }
}
