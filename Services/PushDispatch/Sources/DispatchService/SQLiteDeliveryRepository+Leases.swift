import Foundation
import GRDB
import ServiceCore
import SharedModels

extension SQLiteDeliveryRepository {
    public func claimDue(platform: Platform, owner: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [DeliveryJob]
    {
        let nowMS = now.millisecondsSince1970
        return try await database.write { db in
            // Expired jobs would otherwise sit at the front of the due index until the next sweep.
            try db.execute(
                sql: """
                    UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
                    WHERE status IN ('queued', 'retrying') AND expires_at <= ? AND platform = ?
                    """,
                arguments: [nowMS, nowMS, platform.rawValue]
            )
            // Walks the partial index `delivery_due` in due order and stops after `limit` claimable rows, so a backlog
            // of a million jobs costs no more than a handful. (A server database would add FOR UPDATE SKIP LOCKED.)
            let jobs = try Row.fetchAll(
                db,
                sql: """
                    SELECT delivery.*, device.token, device.apns_mode FROM delivery
                    LEFT JOIN device ON device.id = delivery.device_id
                    WHERE delivery.platform = ? AND delivery.status IN ('queued', 'retrying')
                        AND delivery.next_attempt_at <= ? AND delivery.expires_at > ?
                        AND (delivery.lease_until IS NULL OR delivery.lease_until <= ?)
                    ORDER BY delivery.next_attempt_at LIMIT ?
                    """,
                arguments: [platform.rawValue, nowMS, nowMS, nowMS, limit]
            ).map(Self.job(from:))
            guard !jobs.isEmpty else { return [] }
            let placeholders = Array(repeating: "?", count: jobs.count).joined(separator: ", ")
            try db.execute(
                sql: "UPDATE delivery SET lease_until = ?, lease_owner = ? WHERE sequence IN (\(placeholders))",
                arguments: [leaseUntil.millisecondsSince1970, owner] + StatementArguments(jobs.map(\.sequence))
            )
            return jobs
        }
    }

    public func releaseLease(of job: DeliveryJob, owner: String) async throws {
        try await database.write { db in
            try db.execute(
                sql:
                    "UPDATE delivery SET lease_until = NULL, lease_owner = NULL WHERE sequence = ? AND lease_owner = ?",
                arguments: [job.sequence, owner]
            )
        }
    }

    public func renewLeases(owner: String, until leaseUntil: Date) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE delivery SET lease_until = ? WHERE lease_owner = ?",
                arguments: [leaseUntil.millisecondsSince1970, owner]
            )
            return db.changesCount
        }
    }

    public func nextDueDate(platform: Platform, after: Date) async throws -> Date? {
        let afterMS = after.millisecondsSince1970
        return try await database.read { db in
            let nextAttempt = try Int64.fetchOne(
                db,
                sql: """
                    SELECT next_attempt_at FROM delivery
                    WHERE platform = ? AND status IN ('queued', 'retrying') AND next_attempt_at > ? AND expires_at > ?
                    ORDER BY next_attempt_at LIMIT 1
                    """,
                arguments: [platform.rawValue, afterMS, afterMS]
            )
            // Only leased rows are read (the `+` keeps SQLite on the small `delivery_leased` index).
            let lapse = try Int64.fetchOne(
                db,
                sql: """
                    SELECT MIN(lease_until) FROM delivery
                    WHERE lease_owner IS NOT NULL AND lease_until > ? AND +platform = ? AND +status IN ('queued', 'retrying')
                    """,
                arguments: [afterMS, platform.rawValue]
            )
            return [nextAttempt, lapse].compactMap { $0 }.min().map(Date.init(millisecondsSince1970:))
        }
    }
}
