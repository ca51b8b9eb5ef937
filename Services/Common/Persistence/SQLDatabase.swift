/// A service's relational database, whichever backend holds it: the small async interface repositories are written
/// against once. See docs/architecture.md, "Persistence".
///
/// Statements use `?` placeholders and positional binds; rows come back as ``SQLRow``s decoded by position.
public protocol SQLDatabase: Sendable {
    /// What differs in this backend's SQL.
    var dialect: SQLDialect { get }

    /// Runs one read-only statement (SQLite: on a reader connection, beside the writer).
    func read(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow]

    /// Runs one statement that changes rows, in its own transaction; returns the rows its `RETURNING` clause gives.
    func write(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow]

    /// Runs one statement that changes rows (no `RETURNING` clause), in its own transaction; returns how many it
    /// changed.
    func execute(_ sql: String, _ binds: [any SQLBindable]) async throws -> Int

    /// Runs `body` in one transaction: all of its statements commit together, or, when it throws, none do.
    ///
    /// Inside `body`, use only the transaction it is given: on SQLite a statement on the database itself waits for
    /// the transaction to end (a deadlock), on PostgreSQL it runs outside the transaction.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T

    /// Runs `body` in one transaction unless another replica is running the job `name` right now (then returns
    /// `nil` without running it): for periodic work such as purges. SQLite has one process per file, so it always runs.
    func exclusively<T: Sendable>(_ name: String, _ body: @escaping @Sendable (any SQLTransaction) async throws -> T)
        async throws -> T?

    /// Makes what was just erased unreadable on disk as far as the backend can at once: SQLite (which zeroes deleted
    /// content, `secure_delete`) copies the write-ahead log into the database and truncates it, so the log keeps no
    /// earlier version of the erased pages. PostgreSQL does nothing here: dead tuples and WAL are reclaimed by VACUUM
    /// and checkpoints (docs/security.md).
    func purgeErasedBytes() async throws
}

/// The statements of one open transaction.
public protocol SQLTransaction: Sendable {
    /// What differs in this backend's SQL.
    var dialect: SQLDialect { get }

    /// Runs a statement and returns its rows (a `SELECT`, or a change with `RETURNING`).
    func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow]

    /// Runs a statement that changes rows (no `RETURNING` clause); returns how many it changed.
    func execute(_ sql: String, _ binds: [any SQLBindable]) async throws -> Int
}

extension SQLDatabase {
    /// The first row of a read-only statement, if any.
    public func readOne(_ sql: String, _ binds: [any SQLBindable]) async throws -> SQLRow? {
        try await read(sql, binds).first
    }
}
