import Foundation
import GRDB
import ServiceCore
import Testing

@testable import DispatchService

@Suite("A device stream's query reads only the device's unfinished jobs")
struct PendingJobsQueryPlanTests {
    /// SQLite's plan for `sql` with `arguments` on a freshly migrated push-dispatch database, one detail per step.
    static func plan(_ sql: String, _ arguments: StatementArguments) async throws -> [String] {
        let database = try SQLiteDatabase.open(path: nil, migrator: DispatchMigrations.all.sqliteMigrator)
        return try await database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        }
    }

    @Test(
        "SQLite plans a drain's reads (pending jobs; pending and expired ones) on the partial index, without a sort",
        arguments: [false, true])
    func usesPartialIndex(withExpired: Bool) async throws {
        let plan =
            withExpired
            ? try await Self.plan(SQLDeliveryRepository.pendingOrExpiredJobsSQL, ["d", 0, 0, 100])
            : try await Self.plan(SQLDeliveryRepository.pendingJobsSQL, ["d", 0, 100])
        #expect(plan.contains { $0.contains("delivery_unfinished_by_device") }, "plan: \(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "plan: \(plan)")
        // The send's creation time and trace context are on the job: the sends are not read at all.
        #expect(!plan.contains { $0.contains("push_send") }, "plan: \(plan)")
    }

    @Test(
        "SQLite plans the scheduled sends' look and their claim on the partial index of waiting sends",
        arguments: [false, true])
    func scheduleReadsUsePartialIndex(claim: Bool) async throws {
        let plan =
            claim
            ? try await Self.plan(SQLDeliveryRepository.claimSchedulesSQL(.sqlite), ["owner", 1, 1, 1, 10])
            : try await Self.plan(SQLDeliveryRepository.dueScheduleSQL, [1, 1])
        #expect(plan.contains { $0.contains("push_send_due") }, "plan: \(plan)")
        #expect(!plan.contains { $0 == "SCAN push_send" }, "plan: \(plan)")
    }

    @Test(
        "SQLite reads a send's devices by their owners' index, never the app's whole index (one owner or many)",
        arguments: [1, 2])
    func sendDevicesUseOwnerIndex(owners: Int) async throws {
        let sql =
            owners == 1
            ? SQLDeliveryRepository.activeDevicesOfOneSQL(.sqlite) : SQLDeliveryRepository.activeDevicesSQL(.sqlite)
        let arguments: StatementArguments = owners == 1 ? ["ada", "default"] : [#"["ada","bob"]"#, "default"]
        let plan = try await Self.plan(sql, arguments)
        #expect(plan.contains { $0.contains("device_by_owner") }, "plan: \(plan)")
        #expect(!plan.contains { $0.contains("device_by_app") }, "plan: \(plan)")
    }

    @Test("a device with a long acknowledged history gets exactly its unfinished job")
    func historyNotRead() async throws {
        let database = try ServiceDatabase.sqlite(path: nil, migrations: DispatchMigrations.all).sql
        let devices = SQLDeviceRepository(database: database)
        let deliveries = SQLDeliveryRepository(database: database)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let device = try await devices.register(ownerID: "ada", platform: .direct, token: nil, name: nil, now: start)
        for index in 0..<200 {
            let id = "n\(index)"
            _ = try await deliveries.recordSend(
                SendRecord(
                    notificationID: id, clientID: "backend", recipientID: "ada",
                    expiresAt: start.addingTimeInterval(3600),
                    createdAt: start), claim: nil)
            if index < 199 { _ = try await deliveries.acknowledge(deviceID: device.id, notificationID: id, now: start) }
        }
        let pending = try await deliveries.pendingJobs(deviceID: device.id, after: 0, now: start, limit: 100)
        #expect(pending.map(\.notificationID) == ["n199"])
    }
}
