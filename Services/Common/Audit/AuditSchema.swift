/// The audit trail's tables, the same in every service's database: one migration step each service lists under its
/// own next version.
public enum AuditSchema {
    /// `audit_entry` (one row per entry, its body the text the hash covers) and `audit_checkpoint` (the signed
    /// heads, also written outside the database).
    public static func migration(_ version: String) -> SQLMigration {
        SQLMigration(version) { dialect in
            let integer = dialect.integerType
            return [
                """
                CREATE TABLE audit_entry (
                    chain TEXT NOT NULL,
                    sequence \(integer) NOT NULL,
                    recorded_at \(integer) NOT NULL,
                    type TEXT NOT NULL,
                    body TEXT NOT NULL,
                    hash TEXT NOT NULL,
                    PRIMARY KEY (chain, sequence)
                )
                """,
                "CREATE INDEX audit_entry_by_time ON audit_entry (recorded_at, chain, sequence)",
                """
                CREATE TABLE audit_checkpoint (
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
