import Foundation
import ServiceCore
import SharedModels

extension SQLDeliveryRepository {
    public func claimDue(platform: Platform, owner: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [DeliveryJob]
    {
        let nowMS = now.millisecondsSince1970
        // Three statements, no transaction: each is atomic, and the claim (one statement) is what excludes other
        // workers; the jobs are then read as leased to `owner`.
        // Expired jobs would otherwise sit at the front of the due index until the next sweep.
        _ = try await database.execute(
            """
            UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
            WHERE status IN ('queued', 'retrying') AND expires_at <= ? AND platform = ?
            """, [nowMS, nowMS, platform.rawValue])
        // The inner SELECT walks the partial index `delivery_due` in due order and stops after `limit` claimable
        // rows, so a backlog of a million jobs costs no more than a handful. On PostgreSQL it locks them with
        // SKIP LOCKED: replicas claiming at the same moment take different rows instead of waiting on each other,
        // and rows are re-checked after locking, so a job another replica just claimed is never taken twice.
        let claimed = try await database.write(
            """
            UPDATE delivery SET lease_until = ?, lease_owner = ?
            WHERE sequence IN (
                SELECT sequence FROM delivery
                WHERE platform = ? AND status IN ('queued', 'retrying') AND next_attempt_at <= ? AND expires_at > ?
                    AND (lease_until IS NULL OR lease_until <= ?)
                ORDER BY next_attempt_at LIMIT ? \(database.dialect.claimRows))
            RETURNING sequence
            """, [leaseUntil.millisecondsSince1970, owner, platform.rawValue, nowMS, nowMS, nowMS, limit]
        ).map { try $0.decode(0, as: Int64.self) }
        guard !claimed.isEmpty else { return [] }
        // The claimed rows as the claim left them, with their devices: one statement per batch size (at
        // most `limit` of them cached).
        let jobs = try await database.read(
            """
            SELECT \(Self.jobColumns) FROM \(Self.jobSource)
            WHERE delivery.sequence IN (\(Self.placeholders(claimed.count)))
            ORDER BY delivery.next_attempt_at, delivery.sequence
            """, claimed
        ).map(Self.job(from:))
        return jobs
    }

    public func releaseLease(of job: DeliveryJob, owner: String, claimableAfter: Date?) async throws {
        // A lease without an owner: nobody renews it, and `claimDue` takes the job once it lapses.
        _ = try await database.execute(
            "UPDATE delivery SET lease_until = ?, lease_owner = NULL WHERE sequence = ? AND lease_owner = ?",
            [claimableAfter?.millisecondsSince1970, job.sequence, owner])
    }

    public func renewLeases(owner: String, until leaseUntil: Date) async throws -> Int {
        try await database.execute(
            "UPDATE delivery SET lease_until = ? WHERE lease_owner = ?", [leaseUntil.millisecondsSince1970, owner])
    }

    public func nextDueDate(platform: Platform, after: Date) async throws -> Date? {
        let afterMS = after.millisecondsSince1970
        let nextAttempt = try await database.readOne(
            """
            SELECT next_attempt_at FROM delivery
            WHERE platform = ? AND status IN ('queued', 'retrying') AND next_attempt_at > ? AND expires_at > ?
            ORDER BY next_attempt_at LIMIT 1
            """, [platform.rawValue, afterMS, afterMS]
        )?.decode(0, as: Int64.self)
        // Only leased rows are read: `platform || ''` and `status || ''` keep SQLite on the small `delivery_leased`
        // index instead of the platform's whole due index (PostgreSQL picks it by itself).
        let lapse = try await database.readOne(
            """
            SELECT MIN(lease_until) FROM delivery
            WHERE lease_owner IS NOT NULL AND lease_until > ? AND platform || '' = ?
                AND status || '' IN ('queued', 'retrying')
            """, [afterMS, platform.rawValue]
        )?.decode(0, as: Int64?.self)
        return [nextAttempt, lapse].compactMap { $0 }.min().map(Date.init(millisecondsSince1970:))
    }
}
