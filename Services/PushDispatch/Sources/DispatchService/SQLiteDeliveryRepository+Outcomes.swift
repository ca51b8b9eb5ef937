import Foundation
import GRDB
import ServiceCore
import SharedModels

extension SQLiteDeliveryRepository {
    public func record(_ outcome: DeliveryOutcome, for job: DeliveryJob, leaseOwner owner: String, now: Date)
        async throws -> DeliveryStatus?
    {
        try await database.write { db in try Self.apply(outcome, to: job, leaseOwner: owner, now: now, db) }
    }

    /// Records `outcome` on the job's row and frees its lease; `nil` (nothing recorded) when the job ended meanwhile
    /// or, with `leaseOwner`, when that owner lost the lease. A deactivation also deactivates the device and ends its
    /// other waiting jobs `deactivated`: its token is dead, so attempting them would only fail again.
    static func apply(
        _ outcome: DeliveryOutcome, to job: DeliveryJob, leaseOwner: String?, now: Date, _ db: Database
    ) throws -> DeliveryStatus? {
        let nowMS = now.millisecondsSince1970
        var registered: Int64?
        if outcome.needsLastRegistration {
            registered = try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT last_registered_at FROM device WHERE id = ?"),
                arguments: [job.deviceID])
        }
        let recorded = outcome.recorded(now: now, lastRegisteredAt: registered)
        let (status, lastError, nextAttemptMS) = (recorded.status, recorded.lastError, recorded.nextAttemptMilliseconds)
        let held =
            leaseOwner == nil
            ? "status IN \(unfinished)" : "lease_owner = ? AND status IN ('queued', 'retrying')"
        var arguments: StatementArguments = [status.rawValue, lastError, nextAttemptMS, nowMS, job.sequence]
        if let leaseOwner { arguments += [leaseOwner] }
        try db.cachedStatement(
            sql: """
                UPDATE delivery SET status = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?,
                    updated_at = ?, lease_until = NULL, lease_owner = NULL
                WHERE sequence = ? AND \(held)
                """
        ).execute(
            arguments: arguments
        )
        guard db.changesCount > 0 else { return nil }
        if status == .deactivated {
            try db.cachedStatement(sql: "UPDATE device SET active = 0, deactivated_at = ? WHERE id = ?").execute(
                arguments: [nowMS, job.deviceID])
            try db.cachedStatement(
                sql: """
                    UPDATE delivery SET status = 'deactivated', last_error = ?, updated_at = ?,
                        lease_until = NULL, lease_owner = NULL
                    WHERE device_id = ? AND status IN ('queued', 'retrying')
                    """
            ).execute(arguments: [lastError, nowMS, job.deviceID])
        }
        return status
    }
}
