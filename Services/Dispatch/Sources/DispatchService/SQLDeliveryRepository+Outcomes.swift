import Foundation
import ServiceCore
import SharedModels

extension SQLDeliveryRepository {
    public func record(_ outcome: DeliveryOutcome, for job: DeliveryJob, leaseOwner owner: String, now: Date)
        async throws -> DeliveryStatus?
    {
        if let recorded = Self.rowOnly(outcome, now: now) {
            let (sql, binds) = Self.change(
                to: recorded, of: [job], leaseOwner: owner, now: now, dialect: database.dialect)
            return try await database.execute(sql, binds) > 0 ? recorded.status : nil
        }
        return try await database.transaction { db in
            try await Self.apply(outcome, to: job, leaseOwner: owner, now: now, db)?.status
        }
    }

    @discardableResult
    public func record(_ outcome: DeliveryOutcome, for jobs: [DeliveryJob], now: Date) async throws -> Set<Int64> {
        guard !jobs.isEmpty else { return [] }
        if let recorded = Self.rowOnly(outcome, now: now) {
            let (sql, binds) = Self.change(
                to: recorded, of: jobs, leaseOwner: nil, now: now, dialect: database.dialect)
            // The row's own count, not the job's as read: two streams of one device may both have read it queued.
            let rows = try await database.write(sql + "\nRETURNING sequence, attempts", binds)
            var first: Set<Int64> = []
            for row in rows {
                if try row.decode(1, as: Int64.self) == 1 { first.insert(try row.decode(0, as: Int64.self)) }
            }
            return first
        }
        return try await database.transaction { db in
            var first: Set<Int64> = []
            for job in jobs where try await Self.apply(outcome, to: job, leaseOwner: nil, now: now, db)?.attempts == 1 {
                first.insert(job.sequence)
            }
            return first
        }
    }

    /// What `outcome` writes when it changes the jobs' rows and nothing else (one statement, no transaction); `nil`
    /// when it reads the device or deactivates it.
    static func rowOnly(_ outcome: DeliveryOutcome, now: Date) -> DeliveryOutcome.Recorded? {
        guard !outcome.needsLastRegistration else { return nil }
        let recorded = outcome.recorded(now: now, lastRegisteredAt: nil)
        return recorded.status == .deactivated ? nil : recorded
    }

    /// Records `outcome` on the job's row and frees its lease, and returns the status written and the row's attempts
    /// after it; `nil` (nothing recorded) when the job ended meanwhile or, with `leaseOwner`, when that owner lost the
    /// lease. A deactivation also deactivates the device and ends its other waiting jobs `deactivated`: its token is
    /// dead, so attempting them would only fail again.
    static func apply(
        _ outcome: DeliveryOutcome, to job: DeliveryJob, leaseOwner: String?, now: Date, _ db: any SQLTransaction
    ) async throws -> (status: DeliveryStatus, attempts: Int64)? {
        let nowMS = now.millisecondsSince1970
        var registered: Int64?
        if outcome.needsLastRegistration {
            registered = try await db.query("SELECT last_registered_at FROM device WHERE id = ?", [job.deviceID])
                .first?.decode(0, as: Int64.self)
        }
        let recorded = outcome.recorded(now: now, lastRegisteredAt: registered)
        let (sql, binds) = change(to: recorded, of: [job], leaseOwner: leaseOwner, now: now, dialect: db.dialect)
        guard let row = try await db.query(sql + "\nRETURNING attempts", binds).first else { return nil }
        if recorded.status == .deactivated {
            _ = try await db.execute(
                "UPDATE device SET active = FALSE, deactivated_at = ? WHERE id = ?", [nowMS, job.deviceID])
            // Its token is dead: the store deletes what was sealed to it.
            try await DeviceRevocationOutbox.enqueue(job.deviceID, now: now, db)
            _ = try await db.execute(
                """
                UPDATE delivery SET status = 'deactivated', last_error = ?, updated_at = ?,
                    lease_until = NULL, lease_owner = NULL
                WHERE device_id = ? AND status IN ('queued', 'retrying')
                """, [recorded.lastError, nowMS, job.deviceID])
        }
        return (recorded.status, try row.decode(0, as: Int64.self))
    }

    /// The statement that writes `recorded` on the rows of `jobs` still unfinished (with `leaseOwner`: still leased
    /// to it) and frees their leases: attempts + 1, status, last error, next attempt, updated time.
    static func change(
        to recorded: DeliveryOutcome.Recorded, of jobs: [DeliveryJob], leaseOwner: String?, now: Date,
        dialect: SQLDialect
    ) -> (String, [any SQLBindable]) {
        let held =
            leaseOwner == nil ? "status IN \(unfinished)" : "lease_owner = ? AND status IN ('queued', 'retrying')"
        // One statement for one job and one for any other count: a batch of streams records up to 500 × 100 jobs
        // at once, and a placeholder each made a statement per list length for the writer connection to prepare
        // and keep in its cache (GRDB keeps each until the connection closes), and a list past 65,535 jobs could
        // not reach PostgreSQL at all.
        let sequences = jobs.count == 1 ? "sequence = ?" : "sequence IN (\(dialect.jsonIntegerArray))"
        var binds: [any SQLBindable] = [
            recorded.status.rawValue, recorded.lastError, recorded.nextAttemptMilliseconds, now.millisecondsSince1970,
        ]
        if jobs.count == 1 {
            binds.append(jobs[0].sequence)
        } else {
            binds.append(SQLDialect.jsonIntegerList(jobs.lazy.map(\.sequence)))
        }
        if let leaseOwner { binds.append(leaseOwner) }
        return (
            """
            UPDATE delivery SET status = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?,
                updated_at = ?, lease_until = NULL, lease_owner = NULL
            WHERE \(sequences) AND \(held)
            """, binds
        )
    }

    /// `count` comma-separated placeholders.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
