import Foundation
import PostgresNIO
import ServiceCore
import SharedModels

extension PostgresDeliveryRepository {
    public func claimDue(platform: Platform, owner: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [DeliveryJob]
    {
        let nowMS = now.millisecondsSince1970
        let untilMS = leaseUntil.millisecondsSince1970
        return try await database.transaction { connection in
            try await connection.query(
                """
                UPDATE delivery SET status = 'expired', updated_at = \(nowMS), lease_until = NULL, lease_owner = NULL
                WHERE status IN ('queued', 'retrying') AND expires_at <= \(nowMS) AND platform = \(platform.rawValue)
                """, logger: logger)
            // SKIP LOCKED: replicas claiming at the same moment take different rows instead of waiting on each
            // other; rows are re-checked after locking, so a job another replica just claimed is never taken twice.
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        WITH claimed AS (
                            UPDATE delivery SET lease_until = $1, lease_owner = $2
                            WHERE sequence IN (
                                SELECT sequence FROM delivery
                                WHERE platform = $3 AND status IN ('queued', 'retrying') AND next_attempt_at <= $4
                                    AND expires_at > $4 AND (lease_until IS NULL OR lease_until <= $4)
                                ORDER BY next_attempt_at LIMIT $5
                                FOR UPDATE SKIP LOCKED)
                            RETURNING *)
                        SELECT \(Self.jobColumns.replacingOccurrences(of: "delivery.", with: "claimed."))
                        FROM claimed LEFT JOIN device ON device.id = claimed.device_id
                        ORDER BY claimed.next_attempt_at, claimed.sequence
                        """,
                    binds: {
                        var binds = PostgresBindings()
                        binds.append(untilMS)
                        binds.append(owner)
                        binds.append(platform.rawValue)
                        binds.append(nowMS)
                        binds.append(limit)
                        return binds
                    }()), logger: logger)
            return try await Self.jobs(rows)
        }
    }

    public func releaseLease(of job: DeliveryJob, owner: String) async throws {
        try await database.withClient { client in
            try await client.query(
                """
                UPDATE delivery SET lease_until = NULL, lease_owner = NULL
                WHERE sequence = \(job.sequence) AND lease_owner = \(owner)
                """, logger: logger)
        }
    }

    public func renewLeases(owner: String, until leaseUntil: Date) async throws -> Int {
        try await database.withClient { client in
            let rows = try await client.query(
                """
                WITH renewed AS (
                    UPDATE delivery SET lease_until = \(leaseUntil.millisecondsSince1970) WHERE lease_owner = \(owner)
                    RETURNING 1)
                SELECT count(*) FROM renewed
                """, logger: logger)
            var count = 0
            for try await value in rows.decode(Int64.self) { count = Int(value) }
            return count
        }
    }

    public func nextDueDate(platform: Platform, after: Date) async throws -> Date? {
        let afterMS = after.millisecondsSince1970
        return try await database.withClient { client in
            let rows = try await client.query(
                """
                SELECT LEAST(
                    (SELECT min(next_attempt_at) FROM delivery
                     WHERE platform = \(platform.rawValue) AND status IN ('queued', 'retrying')
                        AND next_attempt_at > \(afterMS) AND expires_at > \(afterMS)),
                    (SELECT min(lease_until) FROM delivery
                     WHERE lease_owner IS NOT NULL AND lease_until > \(afterMS) AND platform = \(platform.rawValue)
                        AND status IN ('queued', 'retrying')))
                """, logger: logger)
            for try await value in rows.decode(Int64?.self) {
                return value.map(Date.init(millisecondsSince1970:))
            }
            return nil
        }
    }

    public func record(_ outcome: DeliveryOutcome, for job: DeliveryJob, leaseOwner owner: String, now: Date)
        async throws -> DeliveryStatus?
    {
        try await database.transaction { connection in
            try await apply(outcome, to: job, leaseOwner: owner, now: now, connection)
        }
    }

    /// Records `outcome` on the job's row and frees its lease (see `SQLiteDeliveryRepository.apply`).
    func apply(
        _ outcome: DeliveryOutcome, to job: DeliveryJob, leaseOwner: String?, now: Date,
        _ connection: PostgresConnection
    ) async throws -> DeliveryStatus? {
        let nowMS = now.millisecondsSince1970
        var registered: Int64?
        if outcome.needsLastRegistration {
            for try await value in try await connection.query(
                "SELECT last_registered_at FROM device WHERE id = \(job.deviceID)", logger: logger
            ).decode(Int64.self) {
                registered = value
            }
        }
        let recorded = outcome.recorded(now: now, lastRegisteredAt: registered)
        let (status, lastError, nextAttemptMS) = (recorded.status, recorded.lastError, recorded.nextAttemptMilliseconds)
        var query = PostgresQuery(
            unsafeSQL: """
                UPDATE delivery SET status = $1, attempts = attempts + 1, last_error = $2, next_attempt_at = $3,
                    updated_at = $4, lease_until = NULL, lease_owner = NULL
                WHERE sequence = $5 AND
                """)
        query.binds.append(status.rawValue)
        query.binds.append(lastError)
        query.binds.append(nextAttemptMS)
        query.binds.append(nowMS)
        query.binds.append(job.sequence)
        if let leaseOwner {
            query.binds.append(leaseOwner)
            query.sql += " lease_owner = $6 AND status IN ('queued', 'retrying') RETURNING sequence"
        } else {
            query.sql += " status IN \(Self.unfinished) RETURNING sequence"
        }
        var changed = false
        for try await _ in try await connection.query(query, logger: logger) { changed = true }
        guard changed else { return nil }
        if status == .deactivated {
            try await connection.query(
                "UPDATE device SET active = FALSE, deactivated_at = \(nowMS) WHERE id = \(job.deviceID)",
                logger: logger)
            try await connection.query(
                """
                UPDATE delivery SET status = 'deactivated', last_error = \(lastError), updated_at = \(nowMS),
                    lease_until = NULL, lease_owner = NULL
                WHERE device_id = \(job.deviceID) AND status IN ('queued', 'retrying')
                """, logger: logger)
        }
        return status
    }
}
