import Foundation
import PostgresNIO
import ServiceCore
import SharedModels

/// `DeliveryRepository` on PostgreSQL: sends, idempotency keys and delivery jobs shared by every push-dispatch
/// replica. Delivery workers claim due jobs with `FOR UPDATE SKIP LOCKED` under a lease, so each job is attempted by
/// one replica at a time, and a replica that dies leaves its jobs to the others once their leases lapse. Committing
/// a send notifies ``DispatchMigrations/wakeChannel`` so that the replica holding a device's event stream, or the
/// platform's worker, wakes at once.
public struct PostgresDeliveryRepository: DeliveryRepository {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    /// Statuses of a job that is not finished yet.
    static let unfinished = "('queued', 'sent', 'retrying')"
    /// Jobs that end `expired` when their notification expires (see `SQLiteDeliveryRepository.expirable`).
    static let expirable = "(status IN ('queued', 'retrying') OR (status = 'sent' AND platform = 'direct'))"
    /// The job columns, joined with the device's token and APNs mode, in ``job(from:)``'s order.
    static let jobColumns = """
        delivery.sequence, delivery.notification_id, delivery.device_id, delivery.platform, device.token,
        delivery.status, delivery.attempts, delivery.expires_at, device.apns_mode
        """

    var logger: Logger { database.logger }

    // MARK: Idempotency

    public func reserve(clientID: String, key: String, now: Date, staleBefore: Date) async throws
        -> IdempotencyReservation
    {
        let nowMS = now.millisecondsSince1970
        let claim = IdempotencyClaim(clientID: clientID, key: key, reservationID: UUID().uuidString.lowercased())
        return try await database.transaction { connection in
            // The primary key makes this the one reservation, however many replicas race for it.
            let inserted = try await connection.query(
                """
                INSERT INTO idempotency_key (client_id, key, state, reservation_id, reserved_at)
                VALUES (\(clientID), \(key), 'pending', \(claim.reservationID), \(nowMS))
                ON CONFLICT (client_id, key) DO NOTHING RETURNING reservation_id
                """, logger: logger)
            for try await _ in inserted { return .reserved(claim) }
            let rows = try await connection.query(
                """
                SELECT k.state, k.reserved_at, s.result FROM idempotency_key k
                LEFT JOIN push_send s ON s.notification_id = k.notification_id
                WHERE k.client_id = \(clientID) AND k.key = \(key) FOR UPDATE OF k
                """, logger: logger)
            var existing: (state: String, reservedAt: Int64, result: String?)?
            for try await row in rows.decode((String, Int64, String?).self) { existing = row }
            // Deleted between the insert and the select (released): the caller may simply try again.
            guard let existing else { return .inProgress }
            if existing.state == "done", let json = existing.result {
                return .completed(try RPCCodec.makeDecoder().decode(Push.Send.Result.self, from: Data(json.utf8)))
            }
            guard existing.reservedAt < staleBefore.millisecondsSince1970 else { return .inProgress }
            // The holder crashed or hung: take the reservation over; its late `recordSend` will be refused.
            try await connection.query(
                """
                UPDATE idempotency_key SET state = 'pending', reservation_id = \(claim.reservationID),
                    reserved_at = \(nowMS)
                WHERE client_id = \(clientID) AND key = \(key)
                """, logger: logger)
            return .reserved(claim)
        }
    }

    public func release(_ claim: IdempotencyClaim) async throws {
        try await database.withClient { client in
            try await client.query(
                """
                DELETE FROM idempotency_key WHERE client_id = \(claim.clientID) AND key = \(claim.key)
                    AND reservation_id = \(claim.reservationID) AND state = 'pending'
                """, logger: logger)
        }
    }

    // MARK: Sends

    public func recordSend(_ send: SendRecord, claim: IdempotencyClaim?) async throws -> RecordedSend {
        let createdMS = send.createdAt.millisecondsSince1970
        let expiresMS = send.expiresAt.millisecondsSince1970
        return try await database.transaction { connection in
            if let claim {
                var holds = false
                for try await _ in try await connection.query(
                    """
                    SELECT 1 FROM idempotency_key WHERE client_id = \(claim.clientID) AND key = \(claim.key)
                        AND reservation_id = \(claim.reservationID) AND state = 'pending' FOR UPDATE
                    """, logger: logger)
                {
                    holds = true
                }
                guard holds else { throw DispatchError.sendInProgress }
            }
            var devices: [(id: String, platform: String, token: String?, apnsMode: String?)] = []
            for try await row in try await connection.query(
                """
                SELECT id, platform, token, apns_mode FROM device WHERE owner_id = \(send.recipientID) AND active
                ORDER BY created_at, registration_order
                """, logger: logger
            ).decode((String, String, String?, String?).self) where send.deviceIDs?.contains(row.0) ?? true {
                devices.append(row)
            }
            let result = Push.Send.Result(
                notificationId: send.notificationID,
                deliveries: devices.map {
                    Push.Send.Delivery(deviceId: $0.id, platform: Platform(rawValue: $0.platform), status: .queued)
                })
            let resultJSON = String(decoding: try RPCCodec.makeEncoder().encode(result), as: UTF8.self)
            try await connection.query(
                """
                INSERT INTO push_send (notification_id, client_id, recipient_id, expires_at, created_at, result)
                VALUES (\(send.notificationID), \(send.clientID), \(send.recipientID), \(expiresMS), \(createdMS),
                        \(resultJSON))
                """, logger: logger)
            var jobs: [DeliveryJob] = []
            for device in devices {
                let rows = try await connection.query(
                    """
                    INSERT INTO delivery (
                        notification_id, device_id, platform, status, attempts, next_attempt_at, expires_at, updated_at)
                    VALUES (\(send.notificationID), \(device.id), \(device.platform), 'queued', 0, \(createdMS),
                            \(expiresMS), \(createdMS))
                    RETURNING sequence
                    """, logger: logger)
                for try await sequence in rows.decode(Int64.self) {
                    jobs.append(
                        DeliveryJob(
                            sequence: sequence, notificationID: send.notificationID, deviceID: device.id,
                            platform: Platform(rawValue: device.platform), deviceToken: device.token, status: .queued,
                            attempts: 0, expiresAt: Date(millisecondsSince1970: expiresMS), apnsMode: device.apnsMode))
                }
            }
            if let claim {
                try await connection.query(
                    """
                    UPDATE idempotency_key SET state = 'done', notification_id = \(send.notificationID)
                    WHERE client_id = \(claim.clientID) AND key = \(claim.key)
                    """, logger: logger)
            }
            // Delivered to every replica when this transaction commits, never before.
            for signal in Set(jobs.map { $0.platform == .direct ? "d:\($0.deviceID)" : "p:\($0.platform.rawValue)" }) {
                try await connection.query(
                    "SELECT pg_notify(\(DispatchMigrations.wakeChannel), \(signal))", logger: logger)
            }
            return RecordedSend(result: result, jobs: jobs)
        }
    }

    public func deliveries(notificationID: String, clientID: String, now: Date) async throws
        -> [Push.Status.DeliveryState]?
    {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { connection -> [Push.Status.DeliveryState]? in
            var sender: String?
            for try await client in try await connection.query(
                "SELECT client_id FROM push_send WHERE notification_id = \(notificationID)", logger: logger
            ).decode(String.self) {
                sender = client
            }
            guard sender == clientID else { return nil }
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        UPDATE delivery SET status = 'expired', updated_at = $1, lease_until = NULL, lease_owner = NULL
                        WHERE notification_id = $2 AND \(Self.expirable) AND expires_at <= $1
                        """, binds: PostgresDeviceRepository.binds(nowMS, notificationID)), logger: logger)
            var states: [Push.Status.DeliveryState] = []
            for try await (device, platform, status, attempts, lastError, updated) in try await connection.query(
                """
                SELECT device_id, platform, status, attempts, last_error, updated_at FROM delivery
                WHERE notification_id = \(notificationID) ORDER BY sequence
                """, logger: logger
            ).decode((String, String, String, Int32, String?, Int64).self) {
                states.append(
                    Push.Status.DeliveryState(
                        deviceId: device, platform: Platform(rawValue: platform),
                        status: DeliveryStatus(rawValue: status), attempts: Int(attempts), lastError: lastError,
                        updatedAt: Date(millisecondsSince1970: updated)))
            }
            return states
        }
    }

    public func pendingJobs(deviceID: String, after sequence: Int64, now: Date, limit: Int) async throws
        -> [DeliveryJob]
    {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { connection in
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        UPDATE delivery SET status = 'expired', updated_at = $1, lease_until = NULL, lease_owner = NULL
                        WHERE device_id = $2 AND status IN \(Self.unfinished) AND \(Self.expirable)
                            AND expires_at <= $1
                        """, binds: PostgresDeviceRepository.binds(nowMS, deviceID)), logger: logger)
            var query = PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.jobColumns) FROM delivery LEFT JOIN device ON device.id = delivery.device_id
                    WHERE delivery.device_id = $1 AND delivery.status IN \(Self.unfinished)
                        AND (delivery.status = 'queued' OR (delivery.status = 'sent' AND delivery.sequence > $2))
                    ORDER BY delivery.sequence LIMIT $3
                    """)
            query.binds.append(deviceID)
            query.binds.append(sequence)
            query.binds.append(limit)
            return try await Self.jobs(try await connection.query(query, logger: logger))
        }
    }

    public func record(_ outcome: DeliveryOutcome, for jobs: [DeliveryJob], now: Date) async throws {
        guard !jobs.isEmpty else { return }
        try await database.transaction { connection in
            for job in jobs {
                _ = try await apply(outcome, to: job, leaseOwner: nil, now: now, connection)
            }
        }
    }

    public func acknowledge(deviceID: String, notificationID: String, now: Date) async throws -> Bool {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { connection in
            var exists = false
            for try await _ in try await connection.query(
                "SELECT 1 FROM delivery WHERE device_id = \(deviceID) AND notification_id = \(notificationID)",
                logger: logger)
            {
                exists = true
            }
            guard exists else { return false }
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        UPDATE delivery SET status = 'acknowledged', updated_at = $1, lease_until = NULL,
                            lease_owner = NULL
                        WHERE device_id = $2 AND notification_id = $3 AND status IN \(Self.unfinished)
                        """,
                    binds: {
                        var binds = PostgresDeviceRepository.binds(nowMS, deviceID)
                        binds.append(notificationID)
                        return binds
                    }()), logger: logger)
            return true
        }
    }

    public func expireDue(now: Date) async throws -> Int {
        let nowMS = now.millisecondsSince1970
        return try await database.withClient { client in
            let rows = try await client.query(
                """
                WITH waiting AS (
                    UPDATE delivery SET status = 'expired', updated_at = \(nowMS), lease_until = NULL, lease_owner = NULL
                    WHERE status IN ('queued', 'retrying') AND expires_at <= \(nowMS) RETURNING 1
                ), written AS (
                    UPDATE delivery SET status = 'expired', updated_at = \(nowMS)
                    WHERE status = 'sent' AND platform = 'direct' AND expires_at <= \(nowMS) RETURNING 1
                )
                SELECT (SELECT count(*) FROM waiting) + (SELECT count(*) FROM written)
                """, logger: logger)
            var count = 0
            for try await value in rows.decode(Int64.self) { count = Int(value) }
            return count
        }
    }

    public func purge(before cutoff: Date) async throws -> Int {
        let cutoffMS = cutoff.millisecondsSince1970
        // One replica at a time: the others skip this round.
        let purged = try await database.exclusively("purge") { connection in
            var count = 0
            for try await value in try await connection.query(
                """
                WITH gone AS (DELETE FROM push_send WHERE expires_at < \(cutoffMS) RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger
            ).decode(Int64.self) {
                count = Int(value)
            }
            try await connection.query(
                "DELETE FROM idempotency_key WHERE state = 'pending' AND reserved_at < \(cutoffMS)", logger: logger)
            return count
        }
        return purged ?? 0
    }

    /// Decodes rows selected with ``jobColumns``.
    static func jobs(_ rows: PostgresRowSequence) async throws -> [DeliveryJob] {
        var jobs: [DeliveryJob] = []
        for try await (sequence, notification, device, platform, token, status, attempts, expires, apnsMode)
            in rows
            .decode((Int64, String, String, String, String?, String, Int32, Int64, String?).self)
        {
            jobs.append(
                DeliveryJob(
                    sequence: sequence, notificationID: notification, deviceID: device,
                    platform: Platform(rawValue: platform), deviceToken: token,
                    status: DeliveryStatus(rawValue: status), attempts: Int(attempts),
                    expiresAt: Date(millisecondsSince1970: expires), apnsMode: apnsMode))
        }
        return jobs
    }
}
