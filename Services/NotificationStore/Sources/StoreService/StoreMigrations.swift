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
        migrator.registerMigration("v2 sealed copies") { db in
            for statement in StoreMigrations.sealedCopies(.sqlite) { try db.execute(sql: statement) }
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
            ]),
        PostgresMigration("v2 sealed copies", sealedCopies(.postgresql)),
    ]

    /// v2, the same on both backends: read-once state, one sealed copy per sealed device (with the key that verifies
    /// the device's proofs), fetch receipts, and the device-proof replay cache shared by replicas.
    static func sealedCopies(_ dialect: SQLDialect) -> [String] {
        let integer = dialect.integerType
        let binary = dialect.binaryType
        return [
            // A row with payload_scheme 'none' keeps no server-readable copy (sealed only, or erased once read).
            "ALTER TABLE notification ADD COLUMN read_once INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE notification ADD COLUMN gone_at \(integer)",
            """
            CREATE TABLE sealed_copy (
                notification_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                public_key \(binary) NOT NULL,
                enc \(binary),
                ciphertext \(binary),
                PRIMARY KEY (notification_id, device_id)
            )
            """,
            """
            CREATE TABLE fetch_receipt (
                notification_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                fetched_at \(integer) NOT NULL,
                expires_at \(integer) NOT NULL,
                PRIMARY KEY (notification_id, device_id)
            )
            """,
            "CREATE INDEX fetch_receipt_by_expiry ON fetch_receipt (expires_at)",
            "CREATE TABLE proof_jti (jti TEXT PRIMARY KEY, expires_at \(integer) NOT NULL)",
            "CREATE INDEX proof_jti_by_expiry ON proof_jti (expires_at)",
        ]
    }
}
