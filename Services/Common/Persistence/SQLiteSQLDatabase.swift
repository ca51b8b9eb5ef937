import CoreMetrics
import Foundation
import GRDB
import GRDBSQLite

/// ``SQLDatabase`` on SQLite through GRDB. Every statement is a GRDB cached prepared statement, so the hot paths
/// parse their SQL once per connection; reads go to the pool's readers, changes to its single writer.
public struct SQLiteSQLDatabase: SQLDatabase, SQLImmediateReading {
    /// The GRDB database (a `DatabasePool` in production, a `DatabaseQueue` in memory for tests).
    public let writer: any DatabaseWriter
    /// The writer, one transaction at a time, concurrent ones sharing a commit.
    let committer: SQLiteGroupCommitter
    /// Every read of the pool, so that ``readImmediately(_:_:)`` never waits for a reader (see ``ReaderGate``).
    let readers: ReaderGate
    /// Connections in use and calls waiting (`nil`: metrics off): a read uses a reader from the moment GRDB runs its
    /// closure, a change or transaction uses the writer from the moment it holds it (``SQLiteGroupCommitter``).
    private let pool: DatabasePoolMetrics?
    /// Connections of its own that ``readImmediately(_:_:)`` reads on (a file database only: an in-memory
    /// `DatabaseQueue` has one connection, GRDB's).
    let direct: SQLiteDirectReaders?

    /// - Parameters:
    ///   - writer: a database opened with ``SQLiteDatabase/open(path:migrator:synchronous:)``, which allows the
    ///     transactions ``transaction(_:)`` keeps open across its body's awaits.
    ///   - metrics: where the connections in use and the calls waiting for one are recorded (the service's metrics).
    ///
    /// Not public: the value holds the lock that keeps transactions apart, so there must be one per writer.
    /// ``ServiceDatabase`` makes it, with the writer, and everything else shares that one.
    ///   - directReaders: connections of ``direct``'s (`nil`: one per core and a spare; `0`: none, every read on
    ///     GRDB's readers).
    init(
        _ writer: any DatabaseWriter, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        directReaders: Int? = nil
    ) {
        self.writer = writer
        committer = SQLiteGroupCommitter(writer: writer)
        pool = DatabasePoolMetrics.make(backend: .sqlite, factory: metrics)
        // A `DatabaseQueue` (in memory, tests) reads on its one connection's queue, which no read holds across an
        // await: its capacity only bounds how many reads on calling threads run at once.
        readers = ReaderGate(capacity: writer.configuration.maximumReaderCount)
        // One per thread that may read at once: the event loops (one per core) and a spare.
        let capacity = directReaders ?? ProcessInfo.processInfo.activeProcessorCount + 1
        direct = (writer as? DatabasePool).flatMap {
            capacity > 0 ? SQLiteDirectReaders(path: $0.path, capacity: capacity) : nil
        }
    }

    public var dialect: SQLDialect { .sqlite }

    public func read(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        try await onReader { db in try Self.rows(db, sql, binds) }
    }

    /// Runs `body`, which must run one statement, on a reader connection with GRDB's async read (it waits for a reader
    /// when all are busy), counted by ``readers`` and the pool gauges. Every async read of the pool goes through here.
    func onReader<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let turn = pool?.turn()
        defer { turn?.end() }
        readers.enter()
        defer { readers.leave() }
        // `unsafeRead`: no BEGIN/COMMIT around the body. Our reads are one statement each, and SQLite gives a single
        // statement its own snapshot; GRDB's `read` wraps it in a transaction of its own (two more statements and
        // their WAL locks per read, ~10% of push-dispatch's CPU on the send path).
        return try await writer.unsafeRead { db in
            turn?.start()
            defer { turn?.end() }
            return try body(db)
        }
    }

    /// A read on the calling thread, so a server can answer it on its event loop (docs/architecture.md, "The fetch
    /// path"): on a connection of ``direct``'s with the statement prepared once, or, when all of those are in use (or
    /// the database is in memory), GRDB's synchronous read, whose reader's serial queue runs the statement on the
    /// calling thread. `nil`, at once, when no reader is idle (``ReaderGate``): the caller reads async instead, never
    /// blocking its thread on a reader that only a task on another thread can give back. Direct reads never wait for
    /// a connection, so the pool's gauges count GRDB's readers only.
    public func readImmediately(_ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow]? {
        if let direct, let rows = try direct.read(sql, binds) { return rows }
        guard readers.tryEnter() else { return nil }
        defer { readers.leave() }
        let turn = pool?.turn()
        defer { turn?.end() }
        return try writer.unsafeRead { db in  // one statement: see `onReader`
            turn?.start()
            return try Self.rows(db, sql, binds)
        }
    }

    /// One statement in its own transaction (which may share its commit with concurrent ones), run on the calling
    /// thread while the writer is held: no hop to GRDB's writer queue and back.
    public func write(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        try await transaction { db in try await db.query(sql, binds) }
    }

    /// Like ``write(_:_:)``: one statement, on the calling thread while the writer is held.
    public func execute(_ sql: String, _ binds: [any SQLBindable]) async throws -> Int {
        try await transaction { db in try await db.execute(sql, binds) }
    }

    /// Runs `body` in one transaction on the writer (``SQLiteGroupCommitter``: it returns once the commit it shares
    /// with the transactions that queued behind it succeeded), counted as waiting until it has the writer, then as in
    /// use.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T)
        async throws -> T
    {
        let turn = pool?.turn()
        defer { turn?.end() }
        let transaction = Transaction(committer: committer)
        return try await committer.transaction(turn: turn) { try await body(transaction) }
    }

    public func exclusively<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T? {
        try await transaction(body)
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)` on the writer: the log's pages go into the database file (where deleted
    /// content is zeroed, `secure_delete`) and the log is cut to nothing. A reader still on an old snapshot can keep
    /// the log from being cut; then the next checkpoint finishes the job.
    public func purgeErasedBytes() async throws {
        let turn = pool?.turn()
        defer { turn?.end() }
        try await committer.withoutTransaction(turn: turn) {
            try committer.onWriter { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
    }

    /// The statements of a transaction ``transaction(_:)`` holds open on the writer.
    struct Transaction: SQLTransaction {
        let committer: SQLiteGroupCommitter
        var dialect: SQLDialect { .sqlite }

        func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
            try committer.onWriter { db in try SQLiteSQLDatabase.rows(db, sql, binds) }
        }

        func execute(_ sql: String, _ binds: [any SQLBindable]) async throws -> Int {
            try committer.onWriter { db in try SQLiteSQLDatabase.changes(db, sql, binds) }
        }
    }

    /// Runs `sql` (a GRDB cached statement: prepared once per connection) with `binds` through
    /// ``SQLiteStatementRunner``; busy past GRDB's busy timeout is an error here.
    ///
    /// GRDB's own bookkeeping of the statement (its `arguments`, its transaction observers) is bypassed: every
    /// statement of ours runs here, none through GRDB's `execute`/`fetch` (which would bind its own stale
    /// arguments), and the services observe nothing. Only BEGIN/COMMIT/ROLLBACK and migrations go through GRDB.
    static func rows(_ db: Database, _ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow] {
        let statement = try db.cachedStatement(sql: sql)
        guard let connection = db.sqliteConnection else {
            throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the database connection is closed")
        }
        guard let rows = try SQLiteStatementRunner.run(statement.sqliteStatement, binds, on: connection) else {
            throw SQLiteStatementError(code: sqlite3_extended_errcode(connection), connection: connection)
        }
        return rows
    }

    static func changes(_ db: Database, _ sql: String, _ binds: [any SQLBindable]) throws -> Int {
        _ = try rows(db, sql, binds)
        return db.changesCount
    }
}
