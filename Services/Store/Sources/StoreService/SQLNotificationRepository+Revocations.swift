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
            WHERE r.device_id = ? AND r.revoked_at >= n.created_at AND n.expires_at > ? AND n.held = 0
            """, [id, deviceID, now.millisecondsSince1970]) != nil
    }

    public func revokeDevices(_ deviceIDs: [String], revocationID: String?, now: Date) async throws -> Int {
        let nowMS = now.millisecondsSince1970
        let deleted = try await database.transaction { db in
            var deleted = 0
            for deviceID in deviceIDs {
                // One statement decides whether this call applies to the device, also against a concurrent copy of
                // it on another replica: a row that already carries this revocationId is left alone (a retry); else
                // the later of two revocations wins (replicas' clocks may differ by a little).
                let applied = try await db.query(
                    """
                    INSERT INTO device_revocation (device_id, revoked_at, revocation_id) VALUES (?, ?, ?)
                    ON CONFLICT (device_id) DO UPDATE SET revocation_id = excluded.revocation_id,
                        revoked_at = CASE WHEN excluded.revoked_at > device_revocation.revoked_at
                            THEN excluded.revoked_at ELSE device_revocation.revoked_at END
                    WHERE excluded.revocation_id IS NULL OR device_revocation.revocation_id IS NULL
                        OR excluded.revocation_id <> device_revocation.revocation_id
                    RETURNING revoked_at
                    """, [deviceID, nowMS, revocationID])
                guard applied.first != nil else { continue }  // applied before: its answer was lost, sent again
                let revokedAt = try applied[0].decode(0, as: Int64.self)
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
