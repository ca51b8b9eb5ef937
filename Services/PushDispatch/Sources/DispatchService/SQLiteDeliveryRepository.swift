import Foundation
import GRDB
import ServiceCore
import SharedModels

/// `DeliveryRepository` on SQLite (GRDB): sends and their delivery jobs. Idempotency keys are in
/// `SQLiteDeliveryRepository+Idempotency.swift`.
public struct SQLiteDeliveryRepository: DeliveryRepository {
    let database: any DatabaseWriter

    public init(database: any DatabaseWriter) {
        self.database = database
    }

    /// Statuses of a job that is not finished yet.
    static let unfinished = "('queued', 'sent', 'retrying')"
    /// Jobs that end `expired` when their notification expires: those still waiting for an attempt, and direct jobs
    /// written to a stream but not acknowledged (a stream writes them again). A remote provider's `sent` is final.
    /// A device's pending jobs (device id, sequence, limit): reads the partial index `delivery_unfinished_by_device`,
    /// so the cost follows the device's unfinished jobs, not its history.
    static let pendingJobsSQL = """
        SELECT delivery.*, device.token, device.apns_mode FROM delivery
        LEFT JOIN device ON device.id = delivery.device_id
        WHERE delivery.device_id = ? AND delivery.status IN \(unfinished)
            AND (delivery.status = 'queued' OR (delivery.status = 'sent' AND delivery.sequence > ?))
        ORDER BY delivery.sequence LIMIT ?
        """
    static let expirable = "(status IN ('queued', 'retrying') OR (status = 'sent' AND platform = 'direct'))"

    public func recordSend(_ send: SendRecord, claim: IdempotencyClaim?) async throws -> RecordedSend {
        let createdMS = send.createdAt.millisecondsSince1970
        let expiresMS = send.expiresAt.millisecondsSince1970
        return try await database.write { db in
            if let claim, try !Self.holds(claim, db) { throw DispatchError.sendInProgress }
            let devices = try Row.fetchAll(
                try db.cachedStatement(
                    sql:
                        """
                        SELECT id, platform, token, apns_mode FROM device WHERE owner_id = ? AND active = 1
                        ORDER BY created_at, rowid
                        """), arguments: [send.recipientID]
            ).filter { send.deviceIDs?.contains($0["id"]) ?? true }
            let result = Push.Send.Result(
                notificationId: send.notificationID,
                deliveries: devices.map {
                    Push.Send.Delivery(
                        deviceId: $0["id"], platform: Platform(rawValue: $0["platform"]), status: .queued)
                }
            )
            let resultJSON = String(decoding: try RPCCodec.makeEncoder().encode(result), as: UTF8.self)
            try db.cachedStatement(
                sql: """
                    INSERT INTO push_send (notification_id, client_id, recipient_id, expires_at, created_at, result)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                send.notificationID, send.clientID, send.recipientID, expiresMS, createdMS, resultJSON,
            ])
            var jobs: [DeliveryJob] = []
            for device in devices {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO delivery (
                            notification_id, device_id, platform, status, attempts, next_attempt_at, expires_at, updated_at)
                        VALUES (?, ?, ?, 'queued', 0, ?, ?, ?)
                        """
                ).execute(arguments: [
                    send.notificationID, device["id"], device["platform"], createdMS, expiresMS, createdMS,
                ]
                )
                jobs.append(
                    DeliveryJob(
                        sequence: db.lastInsertedRowID, notificationID: send.notificationID, deviceID: device["id"],
                        platform: Platform(rawValue: device["platform"]), deviceToken: device["token"], status: .queued,
                        attempts: 0, expiresAt: Date(millisecondsSince1970: expiresMS), apnsMode: device["apns_mode"]
                    )
                )
            }
            if let claim {
                try db.cachedStatement(
                    sql:
                        "UPDATE idempotency_key SET state = 'done', notification_id = ? WHERE client_id = ? AND key = ?"
                ).execute(arguments: [send.notificationID, claim.clientID, claim.key])
            }
            return RecordedSend(result: result, jobs: jobs)
        }
    }

    public func deliveries(notificationID: String, clientID: String, now: Date) async throws -> [Push.Status
        .DeliveryState]?
    {
        let nowMS = now.millisecondsSince1970
        return try await database.write { db in
            let sender = try String.fetchOne(
                try db.cachedStatement(sql: "SELECT client_id FROM push_send WHERE notification_id = ?"),
                arguments: [notificationID])
            guard sender == clientID else { return nil }
            try db.cachedStatement(
                sql: """
                    UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
                    WHERE notification_id = ? AND \(Self.expirable) AND expires_at <= ?
                    """
            ).execute(arguments: [nowMS, notificationID, nowMS])
            return try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT device_id, platform, status, attempts, last_error, updated_at FROM delivery
                        WHERE notification_id = ? ORDER BY sequence
                        """), arguments: [notificationID]
            ).map { row in
                Push.Status.DeliveryState(
                    deviceId: row["device_id"], platform: Platform(rawValue: row["platform"]),
                    status: DeliveryStatus(rawValue: row["status"]), attempts: row["attempts"],
                    lastError: row["last_error"], updatedAt: Date(millisecondsSince1970: row["updated_at"])
                )
            }
        }
    }

    public func pendingJobs(deviceID: String, after sequence: Int64, now: Date, limit: Int) async throws
        -> [DeliveryJob]
    {
        let nowMS = now.millisecondsSince1970
        return try await database.write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
                    WHERE device_id = ? AND status IN \(Self.unfinished) AND \(Self.expirable) AND expires_at <= ?
                    """
            ).execute(arguments: [nowMS, deviceID, nowMS])
            return try Row.fetchAll(
                try db.cachedStatement(sql: Self.pendingJobsSQL), arguments: [deviceID, sequence, limit]
            ).map(Self.job(from:))
        }
    }

    public func record(_ outcome: DeliveryOutcome, for jobs: [DeliveryJob], now: Date) async throws {
        guard !jobs.isEmpty else { return }
        try await database.write { db in
            for job in jobs {
                _ = try Self.apply(outcome, to: job, leaseOwner: nil, now: now, db)
            }
        }
    }

    public func acknowledge(deviceID: String, notificationID: String, now: Date) async throws -> Bool {
        try await database.write { db in
            guard
                try Bool.fetchOne(
                    try db.cachedStatement(sql: "SELECT 1 FROM delivery WHERE device_id = ? AND notification_id = ?"),
                    arguments: [deviceID, notificationID]) != nil
            else { return false }
            try db.cachedStatement(
                sql: """
                    UPDATE delivery SET status = 'acknowledged', updated_at = ?, lease_until = NULL, lease_owner = NULL
                    WHERE device_id = ? AND notification_id = ? AND status IN \(Self.unfinished)
                    """
            ).execute(arguments: [now.millisecondsSince1970, deviceID, notificationID])
            return true
        }
    }

    public func expireDue(now: Date) async throws -> Int {
        let nowMS = now.millisecondsSince1970
        return try await database.write { db in
            // Two statements, so each walks the (status, expires_at) index instead of the whole table.
            try db.cachedStatement(
                sql: """
                    UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
                    WHERE status IN ('queued', 'retrying') AND expires_at <= ?
                    """
            ).execute(arguments: [nowMS, nowMS])
            let waiting = db.changesCount
            try db.cachedStatement(
                sql: """
                    UPDATE delivery SET status = 'expired', updated_at = ?
                    WHERE status = 'sent' AND platform = 'direct' AND expires_at <= ?
                    """
            ).execute(arguments: [nowMS, nowMS])
            return waiting + db.changesCount
        }
    }

    public func purge(before cutoff: Date) async throws -> Int {
        let cutoffMS = cutoff.millisecondsSince1970
        return try await database.write { db in
            try db.cachedStatement(sql: "DELETE FROM push_send WHERE expires_at < ?").execute(arguments: [cutoffMS])
            let purged = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM idempotency_key WHERE state = 'pending' AND reserved_at < ?")
                .execute(arguments: [cutoffMS])
            return purged
        }
    }

    static func job(from row: Row) -> DeliveryJob {
        DeliveryJob(
            sequence: row["sequence"],
            notificationID: row["notification_id"],
            deviceID: row["device_id"],
            platform: Platform(rawValue: row["platform"]),
            deviceToken: row["token"],
            status: DeliveryStatus(rawValue: row["status"]),
            attempts: row["attempts"],
            expiresAt: Date(millisecondsSince1970: row["expires_at"]),
            apnsMode: row["apns_mode"]
        )
    }
}
