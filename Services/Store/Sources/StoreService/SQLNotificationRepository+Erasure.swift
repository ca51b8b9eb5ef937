import Foundation
import ServiceCore

extension SQLNotificationRepository {
    /// Device ids bound per statement.
    static let erasureChunk = 500

    /// Deletes every notification of `userID` (held ones too) and every sealed copy, receipt, proof record and
    /// revocation of those notifications or of `deviceIDs` and of the devices their copies and receipts name, in one
    /// transaction, then scrubs the erased bytes from disk. Returns the rows deleted, by kind.
    public func eraseUser(_ userID: String, deviceIDs: [String]) async throws -> [String: Int] {
        let counts = try await database.transaction { transaction in
            // The user's devices as the store knows them: from the copies sealed to them and their receipts.
            var devices = Set(deviceIDs)
            for row in try await transaction.query(
                """
                SELECT device_id FROM sealed_copy WHERE notification_id IN
                    (SELECT id FROM notification WHERE recipient_id = ?)
                UNION SELECT device_id FROM fetch_receipt WHERE notification_id IN
                    (SELECT id FROM notification WHERE recipient_id = ?)
                """, [userID, userID])
            {
                devices.insert(try row.decode(0))
            }
            var counts: [String: Int] = [:]
            counts["sealedCopies"] = try await transaction.execute(
                "DELETE FROM sealed_copy WHERE notification_id IN (SELECT id FROM notification WHERE recipient_id = ?)",
                [userID])
            counts["receipts"] = try await transaction.execute(
                "DELETE FROM fetch_receipt WHERE notification_id IN (SELECT id FROM notification WHERE recipient_id = ?)",
                [userID])
            counts["proofs"] = 0
            counts["revocations"] = 0
            let ids = Array(devices)
            for start in stride(from: 0, to: ids.count, by: Self.erasureChunk) {
                let chunk = Array(ids[start..<min(start + Self.erasureChunk, ids.count)])
                let list = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                // Receipts outlive their notifications by a day: found by device once the notification is gone.
                counts["sealedCopies", default: 0] += try await transaction.execute(
                    "DELETE FROM sealed_copy WHERE device_id IN (\(list))", chunk)
                counts["receipts", default: 0] += try await transaction.execute(
                    "DELETE FROM fetch_receipt WHERE device_id IN (\(list))", chunk)
                counts["proofs", default: 0] += try await transaction.execute(
                    "DELETE FROM proof_jti WHERE device_id IN (\(list))", chunk)
                counts["revocations", default: 0] += try await transaction.execute(
                    "DELETE FROM device_revocation WHERE device_id IN (\(list))", chunk)
            }
            counts["notifications"] = try await transaction.execute(
                "DELETE FROM notification WHERE recipient_id = ?", [userID])
            return counts
        }
        await purgeErasedBytes()
        return counts
    }
}
