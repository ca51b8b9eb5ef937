import Crypto
import Foundation
import ServiceCore
import SharedModels

/// push-dispatch's part of erasing a person (`devices.eraseUser`): every row that names them, their devices or the
/// notifications sent to them, in one transaction. What each table holds is in docs/compliance.md.
struct SQLDispatchErasure: Sendable {
    /// Ids bound per statement.
    static let chunk = 500

    let database: any SQLDatabase

    /// Deletes everything of `userID`; returns the rows deleted by kind and the device ids the user had (for the
    /// store). On PostgreSQL the transaction tells every replica to forget the user as a recipient
    /// (``DispatchMigrations/wakeChannel``, `u:` + ``recipientDigest(_:)``).
    func eraseUser(_ userID: String) async throws -> (erased: [String: Int], deviceIDs: [String]) {
        try await database.transaction { transaction in
            var devices = Set<String>()
            for row in try await transaction.query(
                """
                SELECT id FROM device WHERE owner_id = ?
                UNION SELECT device_id FROM device_verification WHERE owner_id = ?
                UNION SELECT device_id FROM delivery WHERE notification_id IN
                    (SELECT notification_id FROM push_send WHERE recipient_id = ?)
                """, [userID, userID, userID])
            {
                devices.insert(try row.decode(0))
            }
            let deviceIDs = devices.sorted()
            var erased: [String: Int] = [:]
            // Events kept for webhooks that name the user (every event about a send, a receipt or a device does).
            erased["webhookEvents"] = try await transaction.execute(
                #"DELETE FROM webhook_message WHERE body LIKE ? ESCAPE '\'"#,
                ["%" + Self.likeEscaped(#""recipientId":"\#(userID)""#) + "%"])
            // A send's idempotency record, and a send to many whose answer lists the user.
            erased["idempotencyKeys"] = try await transaction.execute(
                #"""
                DELETE FROM idempotency_key WHERE notification_id IN
                    (SELECT notification_id FROM push_send WHERE recipient_id = ?)
                    OR result LIKE ? ESCAPE '\'
                """#, [userID, "%" + Self.likeEscaped(#""\#(userID)""#) + "%"])
            erased["deliveries"] = try await transaction.execute(
                "DELETE FROM delivery WHERE notification_id IN (SELECT notification_id FROM push_send WHERE recipient_id = ?)",
                [userID])
            // Scheduled, sent and cancelled sends alike.
            erased["sends"] = try await transaction.execute("DELETE FROM push_send WHERE recipient_id = ?", [userID])
            // Push tokens: challenges pushed to them, and other users' pending claims of them.
            _ = try await transaction.execute(
                """
                DELETE FROM device_challenge_push WHERE (platform, token) IN
                    (SELECT platform, token FROM device WHERE owner_id = ? AND token IS NOT NULL
                     UNION SELECT platform, token FROM device_verification WHERE owner_id = ?)
                """, [userID, userID])
            erased["verifications"] = try await transaction.execute(
                """
                DELETE FROM device_verification WHERE owner_id = ? OR (platform, token) IN
                    (SELECT platform, token FROM device WHERE owner_id = ? AND token IS NOT NULL)
                """, [userID, userID])
            for start in stride(from: 0, to: deviceIDs.count, by: Self.chunk) {
                let slice = Array(deviceIDs[start..<min(start + Self.chunk, deviceIDs.count)])
                let list = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                erased["deliveries", default: 0] += try await transaction.execute(
                    "DELETE FROM delivery WHERE device_id IN (\(list))", slice)
                // The store is told by `store.eraseUser` instead: nothing of the user is left to revoke.
                _ = try await transaction.execute(
                    "DELETE FROM device_revocation_outbox WHERE device_id IN (\(list))", slice)
            }
            erased["devices"] = try await transaction.execute("DELETE FROM device WHERE owner_id = ?", [userID])
            try await transaction.notify(DispatchMigrations.wakeChannel, "u:" + Self.recipientDigest(userID))
            return (erased, deviceIDs)
        }
    }

    /// How a user erased on one replica is named to the others: base64url(SHA-256(user id)), so that no user id
    /// passes through PostgreSQL's notification queue.
    static func recipientDigest(_ userID: String) -> String { UserDigest.of(userID) }

    /// `text` with LIKE's wildcards and the escape character escaped (`\`).
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
