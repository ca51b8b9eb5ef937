import Foundation
import ServiceCore

extension SQLNotificationRepository {
    public func storedForPublishing(ids: [String], now: Date) async throws -> [StoredForPublishing] {
        guard !ids.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        return try await database.read(
            """
            SELECT \(Self.columns), held FROM notification
            WHERE id IN (\(database.dialect.jsonTextArray)) AND expires_at > ?
            """, [list, now.millisecondsSince1970]
        ).map { row in
            let held = try row.decode(9, as: Int.self) != 0
            return StoredForPublishing(
                metadata: try Self.metadata(from: row), payload: held ? try open(row) : nil, held: held)
        }
    }

    public func publish(_ items: [PublishedNotification], now: Date) async throws -> Int {
        let nowMS = now.millisecondsSince1970
        let (published, erased) = try await database.transaction { db -> (Int, Bool) in
            var published = 0
            var erased = false
            for item in items {
                // The statement that wins decides: a retried or concurrent publish finds held = 0 and adds nothing.
                let shown = try await db.execute(
                    item.eraseReadableCopy
                        ? """
                        UPDATE notification SET held = 0, created_at = ?, payload = ?, payload_scheme = ?
                        WHERE id = ? AND held = 1
                        """
                        : "UPDATE notification SET held = 0, created_at = ? WHERE id = ? AND held = 1",
                    item.eraseReadableCopy
                        ? [nowMS, Data(), Self.noPayloadScheme, item.id] : [nowMS, item.id])
                guard shown == 1 else { continue }
                published += 1
                erased = erased || item.eraseReadableCopy
                for copy in item.sealedCopies {
                    _ = try await db.execute(
                        """
                        INSERT INTO sealed_copy (notification_id, device_id, public_key, enc, ciphertext)
                        VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (notification_id, device_id) DO NOTHING
                        """, [item.id, copy.deviceID, copy.publicKey, copy.enc, copy.ciphertext])
                }
            }
            return (published, erased)
        }
        // The held readable copies erased must not linger in the write-ahead log either.
        if erased { await purgeErasedBytes() }
        return published
    }

    public func discardHeld(ids: [String]) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        let discarded = try await database.transaction { db in
            let deleted = try await db.query(
                "DELETE FROM notification WHERE id IN (\(db.dialect.jsonTextArray)) AND held = 1 RETURNING id", [list])
            for row in deleted {
                _ = try await db.execute(
                    "DELETE FROM sealed_copy WHERE notification_id = ?", [try row.decode(0, as: String.self)])
            }
            return deleted.count
        }
        if discarded > 0 { await purgeErasedBytes() }
        return discarded
    }
}
