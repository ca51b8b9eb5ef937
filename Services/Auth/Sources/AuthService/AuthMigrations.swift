import ServiceCore

/// auth's schema, one versioned step at a time, for SQLite and PostgreSQL alike (never edit a shipped step; add the
/// next). Times are milliseconds since 1970 in 64-bit integer columns, as in the store and push-dispatch (since `v4`).
///
/// `v1`–`v3` keep what each backend had before the steps were written once (SQLite's `DATETIME` columns from GRDB's
/// schema builder and its index names; PostgreSQL's `TIMESTAMPTZ`), so databases that applied them are not migrated
/// twice; `v4` converts both to milliseconds.
public enum AuthMigrations {
    /// Every step, in order.
    public static let all: [SQLMigration] = [v1, v2, v3, v4, v5, v6, v7, v8]

    /// The service's schema: `auth` on PostgreSQL, built by ``all``.
    public static let schema = ServiceSchema(service: "auth", postgresSchema: "auth", migrations: all)

    static let v1 = SQLMigration("v1") { dialect in
        let time = dialect == .sqlite ? "DATETIME" : "TIMESTAMPTZ"
        let (byUser, byFamily, byExpiry) =
            dialect == .sqlite
            ? ("token_families_on_user_id", "refresh_tokens_on_family_id", "refresh_tokens_on_expires_at")
            : ("token_families_by_user", "refresh_tokens_by_family", "refresh_tokens_by_expiry")
        return [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY NOT NULL, username TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
                created_at \(time) NOT NULL)
            """,
            """
            CREATE TABLE clients (
                id TEXT PRIMARY KEY NOT NULL, secret_hash TEXT NOT NULL, scopes TEXT NOT NULL,
                created_at \(time) NOT NULL, updated_at \(time) NOT NULL)
            """,
            """
            CREATE TABLE token_families (
                id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at \(time) NOT NULL, revoked_at \(time))
            """,
            "CREATE INDEX \(byUser) ON token_families (user_id)",
            """
            CREATE TABLE refresh_tokens (
                hash TEXT PRIMARY KEY NOT NULL,
                family_id TEXT NOT NULL REFERENCES token_families (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at \(time) NOT NULL, expires_at \(time) NOT NULL, used_at \(time))
            """,
            "CREATE INDEX \(byFamily) ON refresh_tokens (family_id)",
            "CREATE INDEX \(byExpiry) ON refresh_tokens (expires_at)",
            """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY NOT NULL, private_key_pem TEXT, x TEXT NOT NULL, y TEXT NOT NULL,
                created_at \(time) NOT NULL, retired_at \(time))
            """,
        ]
    }

    // auth.revokedSessions reads the recent revocations every few seconds: never a scan of every session.
    static let v2 = SQLMigration("v2 revoked families by time") { dialect in
        dialect == .sqlite
            ? ["CREATE INDEX token_families_by_revocation ON token_families (revoked_at)"]
            : ["CREATE INDEX token_families_by_revocation ON token_families (revoked_at) WHERE revoked_at IS NOT NULL"]
    }

    // Sign-in limits shared by the replicas (SQLAttemptCounters); keys are SHA-256 hex. New on SQLite, where a
    // single process keeps its counts in memory: the table is there for tools and tests, already in milliseconds.
    static let v3 = SQLMigration("v3 sign-in attempt counters") { dialect in
        let time = dialect == .sqlite ? "INTEGER" : "TIMESTAMPTZ"
        return [
            "CREATE TABLE attempt_counters (counter_key TEXT PRIMARY KEY NOT NULL, count \(dialect.integerType) NOT NULL, expires_at \(time) NOT NULL)",
            "CREATE INDEX attempt_counters_by_expiry ON attempt_counters (expires_at)",
        ]
    }

    /// Every time column, table by table.
    static let timeColumns: [(table: String, columns: [String])] = [
        ("users", ["created_at"]),
        ("clients", ["created_at", "updated_at"]),
        ("token_families", ["created_at", "revoked_at"]),
        ("refresh_tokens", ["created_at", "expires_at", "used_at"]),
        ("signing_keys", ["created_at", "retired_at"]),
    ]

    // Times in milliseconds since 1970, like the other services. PostgreSQL converts each column in place (its
    // microseconds rounded to the nearest millisecond); SQLite cannot change a column's type, so each table is rebuilt
    // with the same rows (GRDB kept dates as UTC text with milliseconds, converted exactly) and its indexes recreated.
    static let v4 = SQLMigration("v4 times in milliseconds") { dialect in
        guard dialect == .sqlite else {
            return (timeColumns + [("attempt_counters", ["expires_at"])]).map { table, columns in
                "ALTER TABLE \(table) "
                    + columns.map {
                        "ALTER COLUMN \($0) TYPE BIGINT USING round(extract(epoch FROM \($0)) * 1000)::BIGINT"
                    }.joined(separator: ", ")
            }
        }
        let tables = [
            (
                "users",
                "id TEXT PRIMARY KEY NOT NULL, username TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL",
                "id, username, password_hash"
            ),
            (
                "clients",
                "id TEXT PRIMARY KEY NOT NULL, secret_hash TEXT NOT NULL, scopes TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL",
                "id, secret_hash, scopes"
            ),
            (
                "token_families",
                "id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE, created_at INTEGER NOT NULL, revoked_at INTEGER",
                "id, user_id"
            ),
            (
                "refresh_tokens",
                "hash TEXT PRIMARY KEY NOT NULL, family_id TEXT NOT NULL REFERENCES token_families (id) ON DELETE CASCADE, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER",
                "hash, family_id, user_id"
            ),
            (
                "signing_keys",
                "kid TEXT PRIMARY KEY NOT NULL, private_key_pem TEXT, x TEXT NOT NULL, y TEXT NOT NULL, created_at INTEGER NOT NULL, retired_at INTEGER",
                "kid, private_key_pem, x, y"
            ),
        ]
        var statements: [String] = []
        for ((table, definition, kept), (_, times)) in zip(tables, timeColumns) {
            let converted = times.map(sqliteMilliseconds(of:)).joined(separator: ", ")
            statements += [
                "CREATE TABLE \(table)_v4 (\(definition))",
                "INSERT INTO \(table)_v4 SELECT \(kept), \(converted) FROM \(table)",
                "DROP TABLE \(table)",
                "ALTER TABLE \(table)_v4 RENAME TO \(table)",
            ]
        }
        return statements + [
            "CREATE INDEX token_families_by_user ON token_families (user_id)",
            "CREATE INDEX token_families_by_revocation ON token_families (revoked_at) WHERE revoked_at IS NOT NULL",
            "CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id)",
            "CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at)",
        ]
    }

    // The apps a client may act for (issue 27), space-separated like `scopes`; `NULL`, as every existing client gets,
    // means none: the deployment's default app only.
    static let v5 = SQLMigration("v5 client apps", ["ALTER TABLE clients ADD COLUMN apps TEXT"])

    /// The audit trail (issue 31), the same tables as every service's.
    static let v6 = AuditSchema.migration("v6 audit trail", tables: AuditTables(prefix: "auth"))

    /// The keys the audit trails pseudonymise people with: one per user (deleted when the user is erased) and one for
    /// addresses per UTC day (kept two days).
    static let v7 = SQLMigration("v7 audit keys") { dialect in
        [
            """
            CREATE TABLE audit_user_key (
                user_id TEXT PRIMARY KEY NOT NULL, key \(dialect.binaryType) NOT NULL,
                created_at \(dialect.integerType) NOT NULL)
            """,
            "CREATE TABLE audit_address_key (day TEXT PRIMARY KEY NOT NULL, key \(dialect.binaryType) NOT NULL)",
        ]
    }

    /// The erasure journal (`users.delete`): one row per erased user, found again by a digest of the user id. The
    /// user id and device ids are kept only until every service has answered.
    static let v8 = SQLMigration("v8 user erasures") { dialect in
        let integer = dialect.integerType
        return [
            """
            CREATE TABLE user_erasure (
                id TEXT PRIMARY KEY NOT NULL, user_digest TEXT NOT NULL UNIQUE, user_id TEXT,
                requested_by TEXT NOT NULL, requested_at \(integer) NOT NULL, auth_result TEXT NOT NULL,
                dispatch_result TEXT, device_ids TEXT, store_result TEXT, finished_at \(integer))
            """,
            "CREATE INDEX user_erasure_unfinished ON user_erasure (requested_at) WHERE finished_at IS NULL",
        ]
    }

    /// SQLite: GRDB's date text (`YYYY-MM-DD HH:MM:SS.SSS`, UTC) as milliseconds since 1970, exactly; `NULL` stays.
    static func sqliteMilliseconds(of column: String) -> String {
        "CAST(strftime('%s', \(column)) AS INTEGER) * 1000 + CAST(substr(strftime('%f', \(column)), 4) AS INTEGER)"
    }
}
