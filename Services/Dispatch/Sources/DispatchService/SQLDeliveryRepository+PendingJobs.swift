import Foundation
import ServiceCore
import SharedModels

/// What a direct stream's drain reads: a device's pending jobs, with its jobs past expiry marked `expired` first.
///
/// The read comes first and the write only when it is needed: the read also returns the device's unfinished jobs
/// past expiry, so when it saw all it could match and none of them, the expiring `UPDATE` would change nothing and is
/// not run. A drain is then one read on the calling thread (SQLite) instead of a statement through the writer (its
/// lock, its hop and a group's commit) and a read: once per `push.send` to a connected direct device.
extension SQLDeliveryRepository {
    /// A device's pending jobs (device id, sequence, limit): reads the partial index `delivery_unfinished_by_device`,
    /// so the cost follows the device's unfinished jobs, not its history.
    static let pendingJobsSQL = """
        SELECT \(jobColumns) FROM \(jobSource)
        WHERE delivery.device_id = ? AND delivery.status IN \(unfinished)
            AND (delivery.status = 'queued' OR (delivery.status = 'sent' AND delivery.sequence > ?))
        ORDER BY delivery.sequence LIMIT ?
        """

    /// ``pendingJobsSQL`` and, among them in sequence order, the device's unfinished jobs past expiry (device id,
    /// sequence, now in ms, limit): the same partial index, the same order.
    static let pendingOrExpiredJobsSQL = """
        SELECT \(jobColumns) FROM \(jobSource)
        WHERE delivery.device_id = ? AND delivery.status IN \(unfinished)
            AND (delivery.status = 'queued' OR (delivery.status = 'sent' AND delivery.sequence > ?)
                OR delivery.expires_at <= ?)
        ORDER BY delivery.sequence LIMIT ?
        """

    /// Marks the unfinished jobs of the devices `deviceFilter` selects (one placeholder or the dialect's JSON array)
    /// past expiry `expired`: what a drain runs when its read found one.
    static func expireSQL(devices deviceFilter: String) -> String {
        """
        UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
        WHERE device_id \(deviceFilter) AND status IN \(unfinished) AND \(expirable) AND expires_at <= ?
        """
    }

    /// Whether ``expireSQL(devices:)`` would mark `job` expired at `nowMS` (``expirable``, in Swift).
    static func isExpiring(_ job: DeliveryJob, atMS nowMS: Int64) -> Bool {
        guard job.expiresAt.millisecondsSince1970 <= nowMS else { return false }
        switch job.status {
        case .queued, .retrying: return true
        case .sent: return job.platform == .direct
        default: return false
        }
    }

    /// Whether `job` is pending for a stream that wrote up to `sequence`: queued (whatever its sequence), or written
    /// after `sequence` and not acknowledged.
    static func isPending(_ job: DeliveryJob, after sequence: Int64) -> Bool {
        job.status == .queued || (job.status == .sent && job.sequence > sequence)
    }

    public func pendingJobs(deviceID: String, after sequence: Int64, now: Date, limit: Int) async throws
        -> [DeliveryJob]
    {
        let nowMS = now.millisecondsSince1970
        let read = try await database.readImmediatelyIfPossible(
            Self.pendingOrExpiredJobsSQL, [deviceID, sequence, nowMS, limit]
        ).map(Self.job(from:))
        // Fewer rows than the limit: the read saw every job it could match, so none past expiry means none to mark.
        if read.count < limit, !read.contains(where: { Self.isExpiring($0, atMS: nowMS) }) {
            return read.filter { Self.isPending($0, after: sequence) }
        }
        // Two statements, no transaction: a job that ends `expired` here stays so (`now` does not move), and the read
        // (on SQLite, a reader beside the writer) sees what the change committed.
        _ = try await database.execute(Self.expireSQL(devices: "= ?"), [nowMS, deviceID, nowMS])
        return try await database.readImmediatelyIfPossible(Self.pendingJobsSQL, [deviceID, sequence, limit])
            .map(Self.job(from:))
    }

    public func pendingJobs(after sequences: [String: Int64], now: Date, limit: Int) async throws
        -> [String: [DeliveryJob]]
    {
        guard let lowest = sequences.values.min() else { return [:] }
        let nowMS = now.millisecondsSince1970
        let ids = String(decoding: try JSONEncoder().encode(Array(sequences.keys)), as: UTF8.self)
        let devices = "IN (\(database.dialect.jsonTextArray))"
        // The lowest sequence of the set reads a little more than each device needs: trimmed per device below. No
        // limit in SQL, so the read sees every job past expiry of these devices.
        let read = { (withExpired: Bool) in
            try await database.read(
                """
                SELECT \(Self.jobColumns) FROM \(Self.jobSource)
                WHERE delivery.device_id \(devices) AND delivery.status IN \(Self.unfinished)
                    AND (delivery.status = 'queued' OR (delivery.status = 'sent' AND delivery.sequence > ?)
                        \(withExpired ? "OR delivery.expires_at <= ?" : ""))
                ORDER BY delivery.sequence
                """, withExpired ? [ids, lowest, nowMS] : [ids, lowest], keys: sequences.count
            ).map(Self.job(from:))
        }
        var rows = try await read(true)
        if rows.contains(where: { Self.isExpiring($0, atMS: nowMS) }) {
            _ = try await database.execute(Self.expireSQL(devices: devices), [nowMS, ids, nowMS])
            rows = try await read(false)
        }
        var jobs: [String: [DeliveryJob]] = [:]
        for job in rows {
            guard let after = sequences[job.deviceID], Self.isPending(job, after: after),
                jobs[job.deviceID, default: []].count < limit
            else { continue }
            jobs[job.deviceID, default: []].append(job)
        }
        return jobs
    }
}
