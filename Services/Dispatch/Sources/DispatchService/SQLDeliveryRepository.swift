import Foundation
import ServiceCore
import SharedModels

/// `DeliveryRepository` on any ``SQLDatabase`` (SQLite or PostgreSQL), each operation written once: sends and their
/// delivery jobs. Idempotency keys, leases, outcomes and the sweep are in the `SQLDeliveryRepository+…` files.
///
/// Delivery workers claim due jobs under a lease (on PostgreSQL with `FOR UPDATE SKIP LOCKED`), so each job is
/// attempted by one replica at a time, and a replica that dies leaves its jobs to the others once their leases lapse.
/// Committing a send notifies ``DispatchMigrations/wakeChannel`` (on PostgreSQL), so that the replica holding a
/// device's event stream, or the platform's worker, wakes at once.
public struct SQLDeliveryRepository: DeliveryRepository {
    let database: any SQLDatabase
    /// This process's id among push-dispatch replicas: the owner written on its idempotency reservations, and the
    /// row its ``ReplicaLease`` renews in `dispatch_replica`.
    public let replicaID: String

    /// - Parameters:
    ///   - database: a database migrated with ``DispatchMigrations/all``.
    ///   - replicaID: this process's id among replicas (a new random one by default; two repositories sharing a
    ///     database as one process share it).
    public init(database: any SQLDatabase, replicaID: String = UUID.random().uuidString.lowercased()) {
        self.database = database
        self.replicaID = replicaID
    }

    /// Rows per `INSERT` when sends record themselves and their jobs (at most 13 bindings each: well under SQLite's
    /// and PostgreSQL's limits).
    static let insertBatchSize = 200
    /// Statuses of a job that is not finished yet.
    static let unfinished = "('queued', 'sent', 'retrying')"
    /// Jobs that end `expired` when their notification expires: those still waiting for an attempt, and direct jobs
    /// written to a stream but not acknowledged (a stream writes them again). A remote provider's `sent` is final.
    static let expirable = "(status IN ('queued', 'retrying') OR (status = 'sent' AND platform = 'direct'))"
    /// The job columns (with the send's creation time and trace context, copied onto the job), joined with the
    /// device's token and APNs mode, in ``job(from:)``'s order; select them `FROM` ``jobSource``.
    static let jobColumns = """
        delivery.sequence, delivery.notification_id, delivery.device_id, delivery.platform, device.token,
        delivery.status, delivery.attempts, delivery.expires_at, device.apns_mode, delivery.send_created_at,
        delivery.traceparent, device.app_id, delivery.priority, delivery.collapse_id
        """
    /// Jobs with their devices: one primary-key lookup per job.
    static let jobSource = "delivery LEFT JOIN device ON device.id = delivery.device_id"
    public func recordSend(_ send: SendRecord, claim: IdempotencyClaim?) async throws -> RecordedSend {
        try await database.transaction { db in
            let devices = try await Self.activeDevices(of: [send.recipientID], appID: send.appID, db)
            // A scheduled send targets nobody yet: its devices are resolved when it is due.
            let targeted = send.sendAt == nil ? Self.targeted(devices[send.recipientID] ?? [], by: send) : []
            let recorded = try await Self.insert([(send, targeted)], db)
            // Completes the claim, unless it was taken over meanwhile: then nothing of this send is kept.
            if let claim, try await !Self.complete(claim, notificationID: send.notificationID, db) {
                throw DispatchError.sendInProgress
            }
            try await Self.wake(for: recorded.jobs, db)
            return RecordedSend(result: recorded.results[0], jobs: recorded.jobs)
        }
    }

    public func recordSends(_ sends: [SendRecord]) async throws -> [DeliveryJob] {
        guard !sends.isEmpty else { return [] }
        return try await database.transaction { db in
            var pairs: [(SendRecord, [TargetDevice])] = []
            for (appID, group) in Dictionary(grouping: sends, by: \.appID) {
                let devices = try await Self.activeDevices(of: group.map(\.recipientID), appID: appID, db)
                pairs += group.map {
                    ($0, $0.sendAt == nil ? Self.targeted(devices[$0.recipientID] ?? [], by: $0) : [])
                }
            }
            let jobs = try await Self.insert(pairs, db).jobs
            try await Self.wake(for: jobs, db)
            return jobs
        }
    }

    /// An active device as a send reads it in its transaction.
    struct TargetDevice {
        var id: String
        var platform: Platform
        var token: String?
        var apnsMode: String?
    }

    /// The active devices of `appID` owned by `owners`, by owner, oldest first (one read in `db`).
    static func activeDevices(of owners: [String], appID: String, _ db: any SQLTransaction) async throws
        -> [String: [TargetDevice]]
    {
        var devices: [String: [TargetDevice]] = [:]
        let rows =
            owners.count == 1
            ? try await db.query(activeDevicesOfOneSQL(db.dialect), [owners[0], appID])
            : try await db.query(
                activeDevicesSQL(db.dialect),
                [String(decoding: try JSONEncoder().encode(owners), as: UTF8.self), appID])
        for row in rows {
            devices[try row.decode(0, as: String.self), default: []].append(
                TargetDevice(
                    id: try row.decode(1), platform: Platform(rawValue: try row.decode(2)),
                    token: try row.decode(3, as: String?.self), apnsMode: try row.decode(4, as: String?.self)))
        }
        return devices
    }

    /// One owner's active devices of an app (owner, app id): the owner's index, as a send to one reads it.
    static func activeDevicesOfOneSQL(_ dialect: SQLDialect) -> String {
        """
        SELECT owner_id, id, platform, token, apns_mode FROM device
        WHERE owner_id = ? AND app_id = ? AND active = TRUE
        ORDER BY created_at, \(DispatchMigrations.registrationOrder(dialect))
        """
    }

    /// Many owners' active devices of an app (a JSON array of owners, app id). `app_id || ''` keeps SQLite on the
    /// owners' index: it cannot tell how many owners the array holds and would otherwise read the app's whole
    /// index, every device of the app, for a send to one user.
    static func activeDevicesSQL(_ dialect: SQLDialect) -> String {
        """
        SELECT owner_id, id, platform, token, apns_mode FROM device
        WHERE owner_id IN (\(dialect.jsonTextArray)) AND app_id || '' = ? AND active = TRUE
        ORDER BY created_at, \(DispatchMigrations.registrationOrder(dialect))
        """
    }

    /// The devices `send` targets among its recipient's active ones (all, or exactly its sealed ones).
    static func targeted(_ devices: [TargetDevice], by send: SendRecord) -> [TargetDevice] {
        guard let ids = send.deviceIDs else { return devices }
        return devices.filter { ids.contains($0.id) }
    }

    /// Inserts each send not recorded before (by notification id) with one `queued` job per targeted device, and
    /// collapses the earlier sends a collapse id replaces. Returns each send's result (in order; a send recorded
    /// before answers as now) and the new jobs.
    static func insert(_ sends: [(SendRecord, [TargetDevice])], _ db: any SQLTransaction) async throws
        -> (results: [Push.Send.Result], jobs: [DeliveryJob])
    {
        var results: [Push.Send.Result] = []
        var rows: [[any SQLBindable]] = []
        for (send, devices) in sends {
            let result = Push.Send.Result(
                notificationId: send.notificationID,
                deliveries: devices.map { Push.Send.Delivery(deviceId: $0.id, platform: $0.platform, status: .queued) })
            results.append(result)
            rows.append([
                send.notificationID, send.clientID, send.recipientID, send.expiresAt.millisecondsSince1970,
                send.createdAt.millisecondsSince1970, result.directJSON(),
                send.appID, send.priority?.rawValue, send.collapseID, send.sendAt == nil ? "sent" : "scheduled",
                send.sendAt?.millisecondsSince1970, send.sealedOnly ? 1 : 0, send.traceParent?.description,
            ])
        }
        // A send recorded by an earlier call (the same notification, from the store's idempotency key) is skipped.
        var inserted = Set<String>()
        for start in stride(from: 0, to: rows.count, by: insertBatchSize) {
            let batch = rows[start..<min(start + insertBatchSize, rows.count)]
            for row in try await db.query(
                """
                INSERT INTO push_send (
                    notification_id, client_id, recipient_id, expires_at, created_at, result, app_id, priority,
                    collapse_id, state, send_at, sealed_only, traceparent)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: batch.count)
                    .joined(separator: ", "))
                ON CONFLICT (notification_id) DO NOTHING
                RETURNING notification_id
                """, Array(batch.joined()))
            {
                inserted.insert(try row.decode(0, as: String.self))
            }
        }
        // A scheduled send has no jobs yet, and collapses nothing until it is due.
        let fresh = sends.filter { inserted.contains($0.0.notificationID) && $0.0.sendAt == nil }
        return (results, try await insertJobs(fresh, db))
    }

    /// Inserts one `queued` job per (send, device), collapsing first the earlier sends each send's collapse id
    /// replaces; returns the jobs with their sequences.
    /// One job's values: the last is 1 when the sending client has a webhook endpoint (one probe of a small index).
    static let jobValues = """
        (?, ?, ?, 'queued', 0, ?, ?, ?, ?, ?, ?, ?, (SELECT 1 FROM webhook_endpoint WHERE client_id = ? LIMIT 1))
        """

    static func insertJobs(_ fresh: [(SendRecord, [TargetDevice])], _ db: any SQLTransaction) async throws
        -> [DeliveryJob]
    {
        for (send, _) in fresh where send.collapseID != nil {
            try await collapseEarlier(than: send, db)
        }
        let pairs = fresh.flatMap { send, devices in devices.map { (send, $0) } }
        // One statement per `insertBatchSize` jobs, not one per job: 10,000 devices are 50 round trips. Each row's
        // sequence comes back with its notification and device.
        var sequences: [String: Int64] = [:]
        for start in stride(from: 0, to: pairs.count, by: insertBatchSize) {
            let batch = pairs[start..<min(start + insertBatchSize, pairs.count)]
            var bindings: [any SQLBindable] = []
            for (send, device) in batch {
                let created = send.createdAt.millisecondsSince1970
                bindings += [
                    send.notificationID, device.id, device.platform.rawValue, created,
                    send.expiresAt.millisecondsSince1970, created, created, send.traceParent?.description,
                    send.priority?.rawValue, send.collapseID, send.clientID,
                ]
            }
            // `webhook` marks the jobs of a client with a webhook endpoint: only those enter the webhook feed's
            // index, so without endpoints a delivery's changes maintain no index of the feed's.
            let returned = try await db.query(
                """
                INSERT INTO delivery (
                    notification_id, device_id, platform, status, attempts, next_attempt_at, expires_at, updated_at,
                    send_created_at, traceparent, priority, collapse_id, webhook)
                VALUES \(Array(repeating: Self.jobValues, count: batch.count).joined(separator: ", "))
                RETURNING notification_id, device_id, sequence
                """, bindings)
            for row in returned {
                sequences["\(try row.decode(0, as: String.self)) \(try row.decode(1, as: String.self))"] =
                    try row.decode(2, as: Int64.self)
            }
        }
        let jobs = try pairs.map { send, device in
            // No row back would be a schema that disagrees with the code: a decoding error, not a crash.
            let sequence =
                try sequences["\(send.notificationID) \(device.id)"] ?? SQLRow([]).decode(0, as: Int64.self)
            var job = DeliveryJob(
                sequence: sequence, notificationID: send.notificationID, deviceID: device.id,
                platform: device.platform, deviceToken: device.token, status: .queued, attempts: 0,
                expiresAt: Date(millisecondsSince1970: send.expiresAt.millisecondsSince1970),
                apnsMode: device.apnsMode, traceParent: send.traceParent,
                sentAt: Date(millisecondsSince1970: send.createdAt.millisecondsSince1970), appID: send.appID)
            job.priority = send.priority
            job.collapseID = send.collapseID
            return job
        }
        return jobs
    }

    /// Ends `collapsed` the waiting jobs of the earlier sends `send`'s collapse id replaces (same client, recipient
    /// and app): they are never pushed. A job being attempted right now loses its lease, so its outcome is dropped.
    static func collapseEarlier(than send: SendRecord, _ db: any SQLTransaction) async throws {
        _ = try await db.execute(
            """
            UPDATE delivery SET status = 'collapsed', updated_at = ?, lease_until = NULL, lease_owner = NULL
            WHERE status IN ('queued', 'retrying') AND notification_id IN (
                SELECT notification_id FROM push_send
                WHERE client_id = ? AND recipient_id = ? AND app_id = ? AND collapse_id = ? AND notification_id <> ?)
            """,
            [
                send.createdAt.millisecondsSince1970, send.clientID, send.recipientID, send.appID, send.collapseID,
                send.notificationID,
            ])
    }

    /// Tells every replica, when `db` commits (never before), which streams and platform workers have new jobs.
    static func wake(for jobs: [DeliveryJob], _ db: any SQLTransaction) async throws {
        for signal in Set(jobs.map { $0.platform == .direct ? "d:\($0.deviceID)" : "p:\($0.platform.rawValue)" }) {
            try await db.notify(DispatchMigrations.wakeChannel, signal)
        }
    }

    public func deliveries(notificationID: String, clientID: String, now: Date) async throws
        -> [Push.Status.DeliveryState]?
    {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { db -> [Push.Status.DeliveryState]? in
            let sender = try await db.query(
                "SELECT client_id FROM push_send WHERE notification_id = ?", [notificationID]
            ).first?.decode(0, as: String.self)
            guard sender == clientID else { return nil }
            _ = try await db.execute(
                """
                UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
                WHERE notification_id = ? AND \(Self.expirable) AND expires_at <= ?
                """, [nowMS, notificationID, nowMS])
            return try await db.query(
                """
                SELECT device_id, platform, status, attempts, last_error, updated_at FROM delivery
                WHERE notification_id = ? ORDER BY sequence
                """, [notificationID]
            ).map { row in
                Push.Status.DeliveryState(
                    deviceId: try row.decode(0), platform: Platform(rawValue: try row.decode(1)),
                    status: DeliveryStatus(rawValue: try row.decode(2)), attempts: try row.decode(3),
                    lastError: try row.decode(4), updatedAt: Date(millisecondsSince1970: try row.decode(5)))
            }
        }
    }

    public func traceParent(notificationID: String) async throws -> TraceParent? {
        // Every job of a send holds the same value; a malformed one is ignored like everywhere jobs are read.
        let stored = try await database.readOne(
            "SELECT traceparent FROM delivery WHERE notification_id = ? AND traceparent IS NOT NULL LIMIT 1",
            [notificationID]
        ).flatMap { try? $0.decode(0, as: String.self) }
        return stored.flatMap(TraceParent.init)
    }

    public func acknowledge(deviceID: String, notificationID: String, now: Date) async throws
        -> DeliveryAcknowledgement?
    {
        // One statement in the usual case (the send's creation time comes back with it, for the acknowledgement
        // latency); a delivery that already ended still counts as there.
        let changed = try await database.write(
            """
            UPDATE delivery SET status = 'acknowledged', updated_at = ?, lease_until = NULL, lease_owner = NULL
            WHERE device_id = ? AND notification_id = ? AND status IN \(Self.unfinished)
            RETURNING platform, send_created_at
            """, [now.millisecondsSince1970, deviceID, notificationID])
        if let row = changed.first {
            return .acknowledged(
                platform: Platform(rawValue: try row.decode(0)),
                sentAt: try row.decode(1, as: Int64?.self).map(Date.init(millisecondsSince1970:)))
        }
        let exists = try await database.readOne(
            "SELECT 1 FROM delivery WHERE device_id = ? AND notification_id = ?", [deviceID, notificationID])
        return exists == nil ? nil : .alreadyEnded
    }

    public func expireDue(now: Date) async throws -> Int {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { db in
            // Two statements, so each walks the (status, expires_at) index instead of the whole table.
            let waiting = try await db.execute(
                """
                UPDATE delivery SET status = 'expired', updated_at = ?, lease_until = NULL, lease_owner = NULL
                WHERE status IN ('queued', 'retrying') AND expires_at <= ?
                """, [nowMS, nowMS])
            let written = try await db.execute(
                """
                UPDATE delivery SET status = 'expired', updated_at = ?
                WHERE status = 'sent' AND platform = 'direct' AND expires_at <= ?
                """, [nowMS, nowMS])
            return waiting + written
        }
    }

    public func purge(before cutoff: Date, keysBefore: Date?) async throws -> DeliveryPurge {
        let cutoffMS = cutoff.millisecondsSince1970
        // One replica at a time: the others skip this round.
        let purged = try await database.exclusively("purge") { db in
            var purge = DeliveryPurge()
            // Counted before their sends take them along (`ON DELETE CASCADE`).
            let expired = "SELECT notification_id FROM push_send WHERE expires_at < ?"
            purge.deliveries = try await db.execute(
                "DELETE FROM delivery WHERE notification_id IN (\(expired))", [cutoffMS])
            purge.idempotencyKeys = try await db.execute(
                "DELETE FROM idempotency_key WHERE notification_id IN (\(expired))", [cutoffMS])
            purge.sends = try await db.execute("DELETE FROM push_send WHERE expires_at < ?", [cutoffMS])
            if let keysBefore {
                purge.idempotencyKeys += try await db.execute(
                    "DELETE FROM idempotency_key WHERE reserved_at < ?", [keysBefore.millisecondsSince1970])
            } else {
                purge.idempotencyKeys += try await db.execute(
                    "DELETE FROM idempotency_key WHERE state = 'pending' AND reserved_at < ?", [cutoffMS])
            }
            // Unanswered device verifications (ignored once expired; deleted here).
            _ = try await db.execute("DELETE FROM device_verification WHERE expires_at < ?", [cutoffMS])
            _ = try await db.execute(
                "DELETE FROM device_challenge_push WHERE pushed_at < ?",
                [cutoffMS - Int64(DeviceVerification.resendInterval.components.seconds * 1000)])
            return purge
        }
        return purged ?? DeliveryPurge()
    }

    /// Decodes a row selected with ``jobColumns``. A stored trace context that is not a valid `traceparent` is
    /// ignored (the attempt starts a trace of its own), never an error.
    static func job(from row: SQLRow) throws -> DeliveryJob {
        var job = DeliveryJob(
            sequence: try row.decode(0), notificationID: try row.decode(1), deviceID: try row.decode(2),
            platform: Platform(rawValue: try row.decode(3)), deviceToken: try row.decode(4),
            status: DeliveryStatus(rawValue: try row.decode(5)), attempts: try row.decode(6),
            expiresAt: Date(millisecondsSince1970: try row.decode(7)), apnsMode: try row.decode(8),
            traceParent: (try? row.decode(10, as: String?.self)).flatMap(TraceParent.init),
            sentAt: try row.decode(9, as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            // A job whose device is gone keeps no app: its attempt ends the job without a provider.
            appID: try row.decode(11, as: String?.self) ?? "")
        job.priority = try row.decode(12, as: String?.self).map(Push.Priority.init(rawValue:))
        job.collapseID = try row.decode(13, as: String?.self)
        return job
    }
}
