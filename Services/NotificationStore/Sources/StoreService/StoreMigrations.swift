import GRDB
import ServiceCore

/// The store's schema, one versioned migration at a time (never edit a shipped migration; add the next).
public enum StoreMigrations {
    /// The migrator `SQLiteDatabase.open(path:migrator:)` applies.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "notification") { table in
                table.primaryKey("id", .text)
                table.column("recipient_id", .text).notNull()
                // Sealed by a PayloadSealer; `payload_scheme` says which.
                table.column("payload", .blob).notNull()
                table.column("payload_scheme", .text).notNull()
                // Milliseconds since 1970: exact keyset pagination and cheap comparisons.
                table.column("created_at", .integer).notNull()
                table.column("expires_at", .integer).notNull()
                table.column("read_at", .integer)
            }
            try db.create(
                index: "notification_by_recipient",
                on: "notification",
                columns: ["recipient_id", "created_at", "id"]
            )
            try db.create(index: "notification_by_expiry", on: "notification", columns: ["expires_at"])
        }
        return migrator
    }

    /// The same schema on PostgreSQL (schema `store`), for ``SQLNotificationRepository`` on ``PostgresSQLDatabase``.
    public static let postgres: [PostgresMigration] = [
        PostgresMigration(
            "v1",
            [
                """
                CREATE TABLE notification (
                    id TEXT PRIMARY KEY,
                    recipient_id TEXT NOT NULL,
                    payload BYTEA NOT NULL,
                    payload_scheme TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    read_at BIGINT
                )
                """,
                "CREATE INDEX notification_by_recipient ON notification (recipient_id, created_at, id)",
                "CREATE INDEX notification_by_expiry ON notification (expires_at)",
            ])
    ]
}
