import Foundation
import ServiceCore
import SharedModels

extension SQLDeliveryRepository {
    public func reserve(clientID: String, key: String, fingerprint: String, now: Date, staleBefore: Date)
        async throws -> IdempotencyReservation
    {
        let nowMS = now.millisecondsSince1970
        let claim = IdempotencyClaim(clientID: clientID, key: key, reservationID: UUID.random().uuidString.lowercased())
        // The primary key makes this the one reservation, however many duplicates (on any replica) race for it.
        let inserted = try await database.execute(
            """
            INSERT INTO idempotency_key (client_id, key, state, reservation_id, reserved_at, owner, fingerprint)
            VALUES (?, ?, 'pending', ?, ?, ?, ?)
            ON CONFLICT (client_id, key) DO NOTHING
            """, [clientID, key, claim.reservationID, nowMS, replicaID, fingerprint])
        if inserted > 0 { return .reserved(claim) }
        return try await database.transaction { db in
            // Deleted since the insert (released): the caller may simply try again.
            guard
                let row = try await db.query(
                    """
                    SELECT state, reserved_at, notification_id, owner, fingerprint, result FROM idempotency_key
                    WHERE client_id = ? AND key = ?
                    \(db.dialect.lockRows)
                    """, [clientID, key]
                ).first
            else { return .inProgress }
            // A key from before fingerprints were kept matches anything, as it did then.
            if let first = try row.decode(4, as: String?.self), first != fingerprint {
                return .reusedWithOtherParameters
            }
            if try row.decode(0, as: String.self) == "done", let json = try row.decode(5, as: String?.self) {
                return .completedMany(
                    try RPCCodec.makeDecoder().decode(Push.SendToMany.Result.self, from: Data(json.utf8)))
            }
            if try row.decode(0, as: String.self) == "done", let notificationID = try row.decode(2, as: String?.self),
                let json = try await db.query(
                    "SELECT result FROM push_send WHERE notification_id = ?", [notificationID]
                ).first?.decode(0, as: String.self)
            {
                return .completed(try RPCCodec.makeDecoder().decode(Push.Send.Result.self, from: Data(json.utf8)))
            }
            let owner = try row.decode(3, as: String?.self)
            var stale =
                try row.decode(1, as: Int64.self) < staleBefore.millisecondsSince1970 || owner == Self.releasedOwner
            if !stale { stale = try await Self.ownerIsGone(owner, now: nowMS, db) }
            guard stale else { return .inProgress }
            // The holder died or hung: take the reservation over; its late `recordSend` will be refused.
            _ = try await db.execute(
                """
                UPDATE idempotency_key SET state = 'pending', reservation_id = ?, reserved_at = ?, owner = ?,
                    fingerprint = ?
                WHERE client_id = ? AND key = ?
                """, [claim.reservationID, nowMS, replicaID, fingerprint, clientID, key])
            return .reserved(claim)
        }
    }

    /// Whether the replica `owner` holds no live lease: its lease row exists and lapsed before `now`, so it died (or
    /// lost the database) without finishing. An owner with no row at all (a reservation from before owners were
    /// recorded, or a replica that stopped long ago) is not judged here: its reservation waits for the timeout.
    static func ownerIsGone(_ owner: String?, now: Int64, _ db: any SQLTransaction) async throws -> Bool {
        guard let owner else { return false }
        guard
            let leaseUntil = try await db.query("SELECT lease_until FROM dispatch_replica WHERE id = ?", [owner])
                .first?.decode(0, as: Int64.self)
        else { return false }
        return leaseUntil <= now
    }

    /// Releases every pending reservation (run at start on SQLite, where no other process can hold one): a retry
    /// takes it over at once, and its fingerprint still holds.
    static let releaseAllPendingReservations =
        "UPDATE idempotency_key SET owner = '\(releasedOwner)' WHERE state = 'pending'"

    /// The owner a released reservation carries: any retry takes it over at once, and its fingerprint still refuses
    /// the key with other parameters (part of the call may have been stored).
    static let releasedOwner = "released"

    public func release(_ claim: IdempotencyClaim) async throws {
        _ = try await database.execute(
            """
            UPDATE idempotency_key SET owner = ?
            WHERE client_id = ? AND key = ? AND reservation_id = ? AND state = 'pending'
            """, [Self.releasedOwner, claim.clientID, claim.key, claim.reservationID])
    }

    public func complete(_ claim: IdempotencyClaim, firstNotificationID: String, result: Push.SendToMany.Result)
        async throws -> Bool
    {
        let json = result.directJSON()
        return try await database.execute(
            """
            UPDATE idempotency_key SET state = 'done', notification_id = ?, result = ?
            WHERE client_id = ? AND key = ? AND reservation_id = ? AND state = 'pending'
            """, [firstNotificationID, json, claim.clientID, claim.key, claim.reservationID]) > 0
    }

    /// Marks `claim`'s key `done` with the send's notification, when `claim` is still its pending reservation
    /// (otherwise `false`: it was taken over, or released).
    static func complete(_ claim: IdempotencyClaim, notificationID: String, _ db: any SQLTransaction) async throws
        -> Bool
    {
        try await db.execute(
            """
            UPDATE idempotency_key SET state = 'done', notification_id = ?
            WHERE client_id = ? AND key = ? AND reservation_id = ? AND state = 'pending'
            """, [notificationID, claim.clientID, claim.key, claim.reservationID]) > 0
    }
}
