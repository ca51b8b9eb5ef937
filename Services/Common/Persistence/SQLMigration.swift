import GRDB

/// One versioned step of a service's schema, written once for both backends: its statements are plain SQL that
/// both accept, with the dialect supplying what differs (`BLOB`/`BYTEA`, `INTEGER`/`BIGINT`, …).
///
/// A service keeps one list of these, in order; ``sqliteMigrator`` and ``postgres`` apply the same list on each
/// backend. Never edit a shipped step; add the next version. Versions keep the ids earlier releases recorded
/// (GRDB's `grdb_migrations` on SQLite, `securepush_migrations` on PostgreSQL), so existing databases are not
/// migrated twice.
public struct SQLMigration: Sendable {
    /// Unique within the service, applied in list order (`v1`, `v2`, …).
    public let version: String
    /// The statements for a dialect, run in one transaction with the record that the version was applied.
    public let statements: @Sendable (SQLDialect) -> [String]

    /// A step whose statements depend on the dialect (column types, or SQL only one backend needs).
    public init(_ version: String, _ statements: @escaping @Sendable (SQLDialect) -> [String]) {
        self.version = version
        self.statements = statements
    }

    /// A step whose statements are the same on both backends.
    public init(_ version: String, _ statements: [String]) {
        self.init(version) { _ in statements }
    }
}

extension Array where Element == SQLMigration {
    /// The steps as the GRDB migrator `SQLiteDatabase.open(path:migrator:synchronous:)` applies.
    public var sqliteMigrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in self {
            let statements = step.statements(.sqlite)
            migrator.registerMigration(step.version) { db in
                for statement in statements { try db.execute(sql: statement) }
            }
        }
        return migrator
    }

    /// The steps as ``PostgresServiceDatabase`` applies them.
    public var postgres: [PostgresMigration] {
        map { PostgresMigration($0.version, $0.statements(.postgresql)) }
    }
}
