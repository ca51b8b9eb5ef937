import Foundation
import ServiceCore

extension SQLNotificationRepository {
    /// A condition on `sealed_copy c` joined with `notification n`: the device was revoked after the notification was
    /// created (such a copy is deleted at revocation; this also covers one a concurrent `store.put` inserted later).
    static let revokedCopy = """
        EXISTS (SELECT 1 FROM device_revocation r WHERE r.device_id = c.device_id AND r.revoked_at >= n.created_at)
        """

    public func isRevoked(deviceID: String, forNotification id: String, now: Date) async throws -> Bool {
        try await database.readOne(
            """
            SELECT 1 FROM device_revocation r JOIN notification n ON n.id = ?
            WHERE r.device_id = ? AND r.revoked_at >= n.created_at AND n.expires_at > ?
            """, [id, deviceID, now.millisecondsSince1970]) != nil
    }

    public func revokeDevices(_ deviceIDs: [String], revocationID: String?, now: Date) async throws -> Int {
        let nowMS = now.millisecondsSince1970
        let deleted = try await database.transaction { db in
            var deleted = 0
            for deviceID in deviceIDs {
                if let revocationID,
                    let row = try await db.query(
                        "SELECT revocation_id FROM device_revocation WHERE device_id = ?", [deviceID]
                    ).first,
                    try row.decode(0, as: String?.self) == revocationID
                {
                    continue  // this call was applied before: its answer was lost and push-dispatch sent it again
                }
                // The later of two revocations wins (replicas' clocks may differ by a little).
                _ = try await db.execute(
                    """
                    INSERT INTO device_revocation (device_id, revoked_at, revocation_id) VALUES (?, ?, ?)
                    ON CONFLICT (device_id) DO UPDATE SET revocation_id = excluded.revocation_id,
                        revoked_at = CASE WHEN excluded.revoked_at > device_revocation.revoked_at
                            THEN excluded.revoked_at ELSE device_revocation.revoked_at END
                    """, [deviceID, nowMS, revocationID])
                let revokedAt =
                    try await db.query("SELECT revoked_at FROM device_revocation WHERE device_id = ?", [deviceID])
                    .first?.decode(0, as: Int64.self) ?? nowMS
                // Through the device's own copies (indexed), not every notification.
                deleted += try await db.execute(
                    """
                    DELETE FROM sealed_copy WHERE device_id = ? AND notification_id IN (
                        SELECT c.notification_id FROM sealed_copy c JOIN notification n ON n.id = c.notification_id
                        WHERE c.device_id = ? AND n.created_at <= ?)
                    """, [deviceID, deviceID, revokedAt])
            }
            return deleted
        }
        if deleted > 0 { await purgeErasedBytes() }
        return deleted
    }
}
