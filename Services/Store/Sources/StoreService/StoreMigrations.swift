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
        },
        SQLMigration("v2 sealed copies", sealedCopies),
        // Each accepted proof's device, so that one device's proofs are bounded (SECUREPUSH_PROOFS_PER_DEVICE).
        SQLMigration(
            "v3 proofs per device",
            [
                "ALTER TABLE proof_jti ADD COLUMN device_id TEXT",
                "CREATE INDEX proof_jti_by_device ON proof_jti (device_id, expires_at)",
            ]),
        // Devices push-dispatch revoked (store.revokeDevices): their copies of notifications created until
        // `revoked_at` are deleted and their proofs for those refused; `revocation_id` recognises a retried call.
        SQLMigration("v4 device revocations") { dialect in
            [
                """
                CREATE TABLE device_revocation (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    revoked_at \(dialect.integerType) NOT NULL,
                    revocation_id TEXT
                )
                """,
                "CREATE INDEX sealed_copy_by_device ON sealed_copy (device_id)",
            ]
        },
        // Fetches with a proof per client address (SECUREPUSH_STORE_PROOF_RATE_LIMIT), shared by PostgreSQL replicas.
        SQLMigration("v5 proof attempts per address") { dialect in
            SQLAttemptCounters.tableStatements(dialect, table: ProofRateLimiter.table)
        },
        // The writer's idempotency key of a notification (`store.put`/`store.putMany` `idempotencyKey`, as a digest
        // with the writing client): a retried push.send stores one notification per recipient. NULLs do not collide.
        SQLMigration(
            "v6 writer keys",
            [
                "ALTER TABLE notification ADD COLUMN writer_key TEXT",
                // Partial: a notification without a key (most of them) costs the index nothing.
                """
                CREATE UNIQUE INDEX notification_by_writer_key ON notification (writer_key)
                    WHERE writer_key IS NOT NULL
                """,
            ]),
        // Scheduled sends (push.send sendAt): a held notification is stored but hidden from its recipient (never
        // listed, fetched, marked or deleted by them) until store.publish shows it, or store.discard deletes it.
        SQLMigration("v7 held notifications", ["ALTER TABLE notification ADD COLUMN held INTEGER NOT NULL DEFAULT 0"]),
        // The receipts in the order they were recorded, for `store.receiptsSince` (push-dispatch's webhooks).
        SQLMigration(
            "v8 receipts by time",
            ["CREATE INDEX fetch_receipt_by_time ON fetch_receipt (fetched_at, notification_id, device_id)"]),
        // The audit trail (issue 31), the same tables as every service's.
        AuditSchema.migration("v9 audit trail", tables: AuditTables(prefix: "store")),
    ]

    /// The service's schema: `store` on PostgreSQL, built by ``all``.
    public static let schema = ServiceSchema(service: "notification-store", postgresSchema: "store", migrations: all)

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
