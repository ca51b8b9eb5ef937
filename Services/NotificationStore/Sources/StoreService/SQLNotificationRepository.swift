import Foundation
import ServiceCore

/// The notification repository on any ``SQLDatabase`` (SQLite or PostgreSQL): each operation written once, one
/// statement each; payloads pass through a `PayloadSealer` on the way in and out.
public struct SQLNotificationRepository: NotificationRepository {
    private let database: any SQLDatabase
    private let sealer: any PayloadSealer

    /// - Parameters:
    ///   - database: a database migrated with ``StoreMigrations``.
    ///   - sealer: seals payloads at rest (``AESGCMPayloadSealer`` in every running store).
    public init(database: any SQLDatabase, sealer: any PayloadSealer) {
        self.database = database
        self.sealer = sealer
    }

    public func insert(_ record: NotificationRecord) async throws {
        let metadata = record.metadata
        let sealed = try sealer.seal(Data(record.payload.utf8), notificationID: metadata.id)
        _ = try await database.execute(
            """
            INSERT INTO notification (id, recipient_id, payload, payload_scheme, created_at, expires_at, read_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                metadata.id, metadata.recipientID, sealed.bytes, sealed.scheme,
                metadata.createdAt.millisecondsSince1970,
                metadata.expiresAt.millisecondsSince1970, metadata.readAt?.millisecondsSince1970,
            ])
    }

    public func find(id: String, recipientID: String, now: Date) async throws -> NotificationRecord? {
        guard
            let row = try await database.readOne(
                """
                SELECT id, recipient_id, created_at, expires_at, read_at, payload, payload_scheme
                FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ?
                """, [id, recipientID, now.millisecondsSince1970])
        else { return nil }
        let opened = try sealer.open(try row.decode(5, as: Data.self), scheme: try row.decode(6), notificationID: id)
        guard let payload = String(data: opened, encoding: .utf8) else { throw StoreError.corruptPayload }
        return NotificationRecord(metadata: try Self.metadata(from: row), payload: payload)
    }

    public func list(recipientID: String, unreadOnly: Bool, after cursor: ListCursor?, limit: Int, now: Date)
        async throws -> [NotificationMetadata]
    {
        var sql = """
            SELECT id, recipient_id, created_at, expires_at, read_at
            FROM notification WHERE recipient_id = ? AND expires_at > ?
            """
        var binds: [any SQLBindable] = [recipientID, now.millisecondsSince1970]
        if unreadOnly { sql += " AND read_at IS NULL" }
        if let cursor {
            sql += " AND (created_at < ? OR (created_at = ? AND id < ?))"
            binds += [cursor.createdAtMilliseconds, cursor.createdAtMilliseconds, cursor.id]
        }
        sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
        binds.append(limit)
        return try await database.read(sql, binds).map(Self.metadata(from:))
    }

    public func markRead(id: String, recipientID: String, at: Date, now: Date) async throws -> Date? {
        // One statement: set read_at the first time, and return whatever it is now.
        let rows = try await database.write(
            """
            UPDATE notification SET read_at = COALESCE(read_at, ?)
            WHERE id = ? AND recipient_id = ? AND expires_at > ?
            RETURNING read_at
            """, [at.millisecondsSince1970, id, recipientID, now.millisecondsSince1970])
        return try rows.first.map { Date(millisecondsSince1970: try $0.decode(0)) }
    }

    public func delete(id: String, recipientID: String, now: Date) async throws -> Bool {
        try await database.execute(
            "DELETE FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ?",
            [id, recipientID, now.millisecondsSince1970]) > 0
    }

    public func deleteExpired(now: Date) async throws -> Int {
        // One replica at a time: the others skip this round.
        let cutoff = now.millisecondsSince1970
        let deleted = try await database.exclusively("purge") { db in
            try await db.execute("DELETE FROM notification WHERE expires_at <= ?", [cutoff])
        }
        return deleted ?? 0
    }

    /// The first five columns: id, recipient_id, created_at, expires_at, read_at.
    private static func metadata(from row: SQLRow) throws -> NotificationMetadata {
        NotificationMetadata(
            id: try row.decode(0),
            recipientID: try row.decode(1),
            createdAt: Date(millisecondsSince1970: try row.decode(2)),
            expiresAt: Date(millisecondsSince1970: try row.decode(3)),
            readAt: try row.decode(4, as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }
}
