import Foundation
import GRDB
import ServiceCore
import SharedModels

extension SQLiteDeliveryRepository {
    public func reserve(clientID: String, key: String, now: Date, staleBefore: Date) async throws
        -> IdempotencyReservation
    {
        let nowMS = now.millisecondsSince1970
        return try await database.write { db in
            let claim = IdempotencyClaim(clientID: clientID, key: key, reservationID: UUID().uuidString.lowercased())
            guard
                let row = try Row.fetchOne(
                    try db.cachedStatement(
                        sql:
                            "SELECT state, reserved_at, notification_id FROM idempotency_key WHERE client_id = ? AND key = ?"
                    ), arguments: [clientID, key]
                )
            else {
                // The primary key makes this the one reservation, however many duplicates race for it.
                try db.cachedStatement(
                    sql: """
                        INSERT INTO idempotency_key (client_id, key, state, reservation_id, reserved_at)
                        VALUES (?, ?, 'pending', ?, ?)
                        """
                ).execute(arguments: [clientID, key, claim.reservationID, nowMS])
                return .reserved(claim)
            }
            if row["state"] == "done", let notificationID: String = row["notification_id"],
                let json = try String.fetchOne(
                    try db.cachedStatement(sql: "SELECT result FROM push_send WHERE notification_id = ?"),
                    arguments: [notificationID])
            {
                return .completed(try RPCCodec.makeDecoder().decode(Push.Send.Result.self, from: Data(json.utf8)))
            }
            let reservedAt: Int64 = row["reserved_at"]
            guard reservedAt < staleBefore.millisecondsSince1970 else { return .inProgress }
            // The holder crashed or hung: take the reservation over; its late `recordSend` will be refused.
            try db.cachedStatement(
                sql: """
                    UPDATE idempotency_key SET state = 'pending', reservation_id = ?, reserved_at = ?
                    WHERE client_id = ? AND key = ?
                    """
            ).execute(arguments: [claim.reservationID, nowMS, clientID, key])
            return .reserved(claim)
        }
    }

    public func release(_ claim: IdempotencyClaim) async throws {
        try await database.write { db in
            try db.cachedStatement(
                sql:
                    "DELETE FROM idempotency_key WHERE client_id = ? AND key = ? AND reservation_id = ? AND state = 'pending'"
            ).execute(arguments: [claim.clientID, claim.key, claim.reservationID])
        }
    }

    /// Whether `claim` is still the pending reservation of its key.
    static func holds(_ claim: IdempotencyClaim, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            try db.cachedStatement(
                sql:
                    "SELECT 1 FROM idempotency_key WHERE client_id = ? AND key = ? AND reservation_id = ? AND state = 'pending'"
            ), arguments: [claim.clientID, claim.key, claim.reservationID]
        ) != nil
    }
}
