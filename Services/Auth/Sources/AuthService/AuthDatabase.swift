import GRDB
import ServiceCore

/// The auth SQLite schema and how to open it.
public enum AuthDatabase {
    /// Opens (creating and migrating when needed) the auth database at `path`; `nil` is a private in-memory database.
    public static func open(path: String?, synchronous: SQLiteSynchronous = .normal) throws -> any DatabaseWriter {
        try SQLiteDatabase.open(path: path, migrator: migrator, synchronous: synchronous)
    }

    /// Versioned migrations; never edit a shipped one, add `v2`, `v3`, ….
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "users") { t in
                t.primaryKey("id", .text)
                t.column("username", .text).notNull().unique()
                t.column("password_hash", .text).notNull()
                t.column("created_at", .datetime).notNull()
            }
            try db.create(table: "clients") { t in
                t.primaryKey("id", .text)
                t.column("secret_hash", .text).notNull()
                // Space-separated, like the token's `scope` claim.
                t.column("scopes", .text).notNull()
                t.column("created_at", .datetime).notNull()
                t.column("updated_at", .datetime).notNull()
            }
            try db.create(table: "token_families") { t in
                t.primaryKey("id", .text)
                t.column("user_id", .text).notNull().indexed().references("users", onDelete: .cascade)
                t.column("created_at", .datetime).notNull()
                t.column("revoked_at", .datetime)
            }
            try db.create(table: "refresh_tokens") { t in
                // SHA-256 hex of the token; the token itself is never stored.
                t.primaryKey("hash", .text)
                t.column("family_id", .text).notNull().indexed().references("token_families", onDelete: .cascade)
                t.column("user_id", .text).notNull().references("users", onDelete: .cascade)
                t.column("created_at", .datetime).notNull()
                t.column("expires_at", .datetime).notNull().indexed()
                t.column("used_at", .datetime)
            }
            try db.create(table: "signing_keys") { t in
                t.primaryKey("kid", .text)
                t.column("private_key_pem", .text)
                t.column("x", .text).notNull()
                t.column("y", .text).notNull()
                t.column("created_at", .datetime).notNull()
                t.column("retired_at", .datetime)
            }
        }
        migrator.registerMigration("v2 revoked families by time") { db in
            // auth.revokedSessions reads the recent revocations every few seconds: never a scan of every session.
            try db.create(index: "token_families_by_revocation", on: "token_families", columns: ["revoked_at"])
        }
        return migrator
    }
}
