import ServiceCore

/// The store's schema, one versioned step at a time, for SQLite and PostgreSQL alike (never edit a shipped step;
/// add the next). Times are milliseconds since 1970 (exact keyset pagination and cheap comparisons).
public enum StoreMigrations {
    /// Every step, in order.
    public static let all: [SQLMigration] = [
        SQLMigration("v1") { dialect in
            [
                """
                CREATE TABLE notification (
                    id TEXT PRIMARY KEY NOT NULL,
                    recipient_id TEXT NOT NULL,
                    payload \(dialect.binaryType) NOT NULL,
                    payload_scheme TEXT NOT NULL,
                    created_at \(dialect.integerType) NOT NULL,
                    expires_at \(dialect.integerType) NOT NULL,
                    read_at \(dialect.integerType)
                )
                """,
                "CREATE INDEX notification_by_recipient ON notification (recipient_id, created_at, id)",
                "CREATE INDEX notification_by_expiry ON notification (expires_at)",
            ]
        }
    ]
}
