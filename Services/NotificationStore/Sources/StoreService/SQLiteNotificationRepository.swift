import Foundation
import GRDB
import ServiceCore

/// The notification repository on SQLite (GRDB); payloads pass through a `PayloadSealer` on the way in and out.
public struct SQLiteNotificationRepository: NotificationRepository {
    private let database: any DatabaseWriter
    private let sealer: any PayloadSealer

    /// - Parameters:
    ///   - database: a database migrated with `StoreMigrations.migrator`.
    ///   - sealer: seals payloads at rest.
    public init(database: any DatabaseWriter, sealer: any PayloadSealer = IdentityPayloadSealer()) {
        self.database = database
        self.sealer = sealer
    }

    public func insert(_ record: NotificationRecord) async throws {
        let metadata = record.metadata
        let sealed = try sealer.seal(Data(record.payload.utf8))
        let scheme = sealer.scheme
        try await database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO notification (id, recipient_id, payload, payload_scheme, created_at, expires_at, read_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                metadata.id, metadata.recipientID, sealed, scheme,
                metadata.createdAt.millisecondsSince1970, metadata.expiresAt.millisecondsSince1970,
                metadata.readAt?.millisecondsSince1970,
            ])
        }
    }

    public func find(id: String, recipientID: String, now: Date) async throws -> NotificationRecord? {
        // Rows are not Sendable: copy what is needed out of the read.
        let stored = try await database.read { db -> (metadata: NotificationMetadata, sealed: Data, scheme: String)? in
            guard
                let row = try Row.fetchOne(
                    try db.cachedStatement(
                        sql: """
                            SELECT id, recipient_id, payload, payload_scheme, created_at, expires_at, read_at
                            FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ?
                            """), arguments: [id, recipientID, now.millisecondsSince1970]
                )
            else { return nil }
            return (Self.metadata(from: row), row["payload"], row["payload_scheme"])
        }
        guard let stored else { return nil }
        guard let payload = String(data: try sealer.open(stored.sealed, scheme: stored.scheme), encoding: .utf8) else {
            throw StoreError.corruptPayload
        }
        return NotificationRecord(metadata: stored.metadata, payload: payload)
    }

    public func list(recipientID: String, unreadOnly: Bool, after cursor: ListCursor?, limit: Int, now: Date)
        async throws
        -> [NotificationMetadata]
    {
        var sql = """
            SELECT id, recipient_id, created_at, expires_at, read_at
            FROM notification WHERE recipient_id = ? AND expires_at > ?
            """
        var arguments: StatementArguments = [recipientID, now.millisecondsSince1970]
        if unreadOnly {
            sql += " AND read_at IS NULL"
        }
        if let cursor {
            sql += " AND (created_at < ? OR (created_at = ? AND id < ?))"
            arguments += [cursor.createdAtMilliseconds, cursor.createdAtMilliseconds, cursor.id]
        }
        sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
        arguments += [limit]
        let finalSQL = sql
        let finalArguments = arguments
        return try await database.read { db in
            try Row.fetchAll(db, sql: finalSQL, arguments: finalArguments).map(Self.metadata(from:))
        }
    }

    public func markRead(id: String, recipientID: String, at: Date, now: Date) async throws -> Date? {
        try await database.write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE notification SET read_at = ?
                    WHERE id = ? AND recipient_id = ? AND expires_at > ? AND read_at IS NULL
                    """
            ).execute(arguments: [at.millisecondsSince1970, id, recipientID, now.millisecondsSince1970])
            // Non-null whenever the row exists: either just set or set by an earlier call.
            let readAt = try Int64.fetchOne(
                try db.cachedStatement(
                    sql: "SELECT read_at FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ?"),
                arguments: [id, recipientID, now.millisecondsSince1970]
            )
            return readAt.map(Date.init(millisecondsSince1970:))
        }
    }

    public func delete(id: String, recipientID: String, now: Date) async throws -> Bool {
        try await database.write { db in
            try db.cachedStatement(sql: "DELETE FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ?")
                .execute(arguments: [id, recipientID, now.millisecondsSince1970])
            return db.changesCount > 0
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        try await database.write { db in
            try db.cachedStatement(sql: "DELETE FROM notification WHERE expires_at <= ?").execute(arguments: [
                now.millisecondsSince1970
            ])
            return db.changesCount
        }
    }

    private static func metadata(from row: Row) -> NotificationMetadata {
        let readAt: Int64? = row["read_at"]
        return NotificationMetadata(
            id: row["id"],
            recipientID: row["recipient_id"],
            createdAt: Date(millisecondsSince1970: row["created_at"]),
            expiresAt: Date(millisecondsSince1970: row["expires_at"]),
            readAt: readAt.map(Date.init(millisecondsSince1970:))
        )
    }
}
