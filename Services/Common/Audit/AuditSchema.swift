/// The names of one service's audit tables: `<prefix>_audit_entry` and `<prefix>_audit_checkpoint`, the prefix being
/// the service's PostgreSQL schema name (`auth`, `store`, `dispatch`), so that services sharing one schema (a
/// `schema` parameter in `SECUREPUSH_DATABASE_URL`) keep separate trails.
public struct AuditTables: Sendable, Hashable {
    /// One row per entry.
    public let entry: String
    /// One row per signed checkpoint.
    public let checkpoint: String

    public init(prefix: String) {
        entry = "\(prefix)_audit_entry"
        checkpoint = "\(prefix)_audit_checkpoint"
    }

    /// The tables of the service whose schema is `schema`.
    public init(_ schema: ServiceSchema) {
        self.init(prefix: schema.postgresSchema)
    }
}

/// The audit trail's tables, the same in every service's database: one migration step each service lists under its
/// own next version.
public enum AuditSchema {
    /// The entries (one row per entry, its body the text the hash covers) and the checkpoints (the signed heads, also
    /// written outside the database).
    public static func migration(_ version: String, tables: AuditTables) -> SQLMigration {
        SQLMigration(version) { dialect in
            let integer = dialect.integerType
            return [
                """
                CREATE TABLE \(tables.entry) (
                    chain TEXT NOT NULL,
                    sequence \(integer) NOT NULL,
                    recorded_at \(integer) NOT NULL,
                    type TEXT NOT NULL,
                    body TEXT NOT NULL,
                    hash TEXT NOT NULL,
                    PRIMARY KEY (chain, sequence)
                )
                """,
                "CREATE INDEX \(tables.entry)_by_time ON \(tables.entry) (recorded_at, chain, sequence)",
                """
                CREATE TABLE \(tables.checkpoint) (
                    chain TEXT NOT NULL,
                    sequence \(integer) NOT NULL,
                    hash TEXT NOT NULL,
                    signed_at \(integer) NOT NULL,
                    key_id TEXT NOT NULL,
                    signature TEXT NOT NULL,
                    PRIMARY KEY (chain, sequence)
                )
                """,
            ]
        }
    }
}
