import Foundation
import PostgresNIO
import ServiceCore

/// The notification repository on PostgreSQL; the same behaviour as ``SQLiteNotificationRepository``, shared by any
/// number of notification-store replicas.
public struct PostgresNotificationRepository: NotificationRepository {
    private let database: PostgresServiceDatabase
    private let sealer: any PayloadSealer

    /// - Parameters:
    ///   - database: the store's database, migrated with ``StoreMigrations/postgres``.
    ///   - sealer: seals payloads at rest.
    public init(database: PostgresServiceDatabase, sealer: any PayloadSealer = IdentityPayloadSealer()) {
        self.database = database
        self.sealer = sealer
    }

    public func insert(_ record: NotificationRecord) async throws {
        let metadata = record.metadata
        let sealed = try sealer.seal(Data(record.payload.utf8))
        let scheme = sealer.scheme
        let query: PostgresQuery = try """
        INSERT INTO notification (id, recipient_id, payload, payload_scheme, created_at, expires_at, read_at)
        VALUES (\(metadata.id), \(metadata.recipientID), \(sealed), \(scheme),
                \(metadata.createdAt.millisecondsSince1970), \(metadata.expiresAt.millisecondsSince1970),
                \(metadata.readAt?.millisecondsSince1970))
        """
        _ = try await database.withClient { client in try await client.query(query) }
    }

    public func find(id: String, recipientID: String, now: Date) async throws -> NotificationRecord? {
        let query: PostgresQuery = """
            SELECT id, recipient_id, created_at, expires_at, read_at, payload, payload_scheme
            FROM notification WHERE id = \(id) AND recipient_id = \(recipientID) AND expires_at > \(now.millisecondsSince1970)
            """
        let stored = try await database.withClient { client -> (NotificationMetadata, Data, String)? in
            let rows = try await client.query(query)
            for try await (id, recipient, created, expires, read, payload, scheme) in rows.decode(
                (String, String, Int64, Int64, Int64?, Data, String).self)
            {
                return (Self.metadata(id, recipient, created, expires, read), payload, scheme)
            }
            return nil
        }
        guard let (metadata, sealed, scheme) = stored else { return nil }
        guard let payload = String(data: try sealer.open(sealed, scheme: scheme), encoding: .utf8) else {
            throw StoreError.corruptPayload
        }
        return NotificationRecord(metadata: metadata, payload: payload)
    }

    public func list(recipientID: String, unreadOnly: Bool, after cursor: ListCursor?, limit: Int, now: Date)
        async throws -> [NotificationMetadata]
    {
        var query: PostgresQuery = """
            SELECT id, recipient_id, created_at, expires_at, read_at
            FROM notification WHERE recipient_id = \(recipientID) AND expires_at > \(now.millisecondsSince1970)
            """
        if unreadOnly { query.sql += " AND read_at IS NULL" }
        if let cursor {
            query.binds.append(cursor.createdAtMilliseconds)
            query.binds.append(cursor.id)
            let created = query.binds.count - 1
            query.sql += " AND (created_at < $\(created) OR (created_at = $\(created) AND id < $\(created + 1)))"
        }
        query.binds.append(limit)
        query.sql += " ORDER BY created_at DESC, id DESC LIMIT $\(query.binds.count)"
        let finalQuery = query
        return try await database.withClient { client in
            var items: [NotificationMetadata] = []
            let rows = try await client.query(finalQuery)
            for try await (id, recipient, created, expires, read) in rows.decode(
                (String, String, Int64, Int64, Int64?).self)
            {
                items.append(Self.metadata(id, recipient, created, expires, read))
            }
            return items
        }
    }

    public func markRead(id: String, recipientID: String, at: Date, now: Date) async throws -> Date? {
        // One statement: set read_at the first time, and return whatever it is now.
        let query: PostgresQuery = """
            UPDATE notification SET read_at = COALESCE(read_at, \(at.millisecondsSince1970))
            WHERE id = \(id) AND recipient_id = \(recipientID) AND expires_at > \(now.millisecondsSince1970)
            RETURNING read_at
            """
        return try await database.withClient { client in
            for try await readAt in try await client.query(query).decode(Int64.self) {
                return Date(millisecondsSince1970: readAt)
            }
            return nil
        }
    }

    public func delete(id: String, recipientID: String, now: Date) async throws -> Bool {
        let query: PostgresQuery = """
            DELETE FROM notification
            WHERE id = \(id) AND recipient_id = \(recipientID) AND expires_at > \(now.millisecondsSince1970)
            RETURNING id
            """
        return try await database.withClient { client in
            for try await _ in try await client.query(query) { return true }
            return false
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        // One replica at a time: the others skip this round.
        let cutoff = now.millisecondsSince1970
        let deleted = try await database.exclusively("purge") { connection in
            let rows = try await connection.query(
                "WITH gone AS (DELETE FROM notification WHERE expires_at <= \(cutoff) RETURNING 1) SELECT count(*) FROM gone",
                logger: database.logger)
            var count = 0
            for try await value in rows.decode(Int64.self) { count = Int(value) }
            return count
        }
        return deleted ?? 0
    }

    private static func metadata(_ id: String, _ recipient: String, _ created: Int64, _ expires: Int64, _ read: Int64?)
        -> NotificationMetadata
    {
        NotificationMetadata(
            id: id,
            recipientID: recipient,
            createdAt: Date(millisecondsSince1970: created),
            expiresAt: Date(millisecondsSince1970: expires),
            readAt: read.map(Date.init(millisecondsSince1970:))
        )
    }
}
