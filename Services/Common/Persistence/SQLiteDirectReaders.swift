import Foundation
import GRDBSQLite
import Synchronization

/// Read-only SQLite connections that the calling thread (a server's event loop) reads on directly, each with its
/// statements prepared once: the fast path of ``SQLiteSQLDatabase/readImmediately(_:_:)``.
///
/// GRDB's synchronous read runs on the calling thread too, but through the pool's semaphore and a reader's serial
/// dispatch queue (a barrier sync, and a futex wake-up whenever another thread touched that queue): with GRDB's value
/// conversions, a fifth of `store.get`'s CPU. Here a read takes a free connection with one atomic exchange, runs its
/// cached statement (``SQLiteStatementRunner``), and gives the connection back; when every connection is in use
/// (more threads than ``capacity`` reading at once) the caller reads on GRDB's readers instead, never waiting.
///
/// Connections open lazily (`SQLITE_OPEN_READONLY`, so nothing read here can change the database) and close when
/// the value is released. Each statement is its own snapshot, as on GRDB's readers (``SQLiteSQLDatabase`` reads
/// with `unsafeRead`, no transaction around one statement); a statement is reset right after its last row, so no
/// read here holds the WAL back from a checkpoint.
final class SQLiteDirectReaders: Sendable {
    /// The database file.
    let path: String
    private let slots: [Slot]

    /// - Parameters:
    ///   - path: a database file in WAL mode (a `DatabasePool`'s).
    ///   - capacity: connections at most (event loops reading at once; more fall back to the pool).
    init(path: String, capacity: Int) {
        precondition(capacity > 0, "at least one direct reader")
        self.path = path
        slots = (0..<capacity).map { _ in Slot() }
    }

    /// Connections at most.
    var capacity: Int { slots.count }

    /// Runs one read-only statement on the calling thread; `nil` when every connection is in use or SQLite is busy
    /// (a WAL recovery by another process): the caller reads async instead.
    ///
    /// A connection that cannot be opened (no file descriptor left, say) is also `nil`, so GRDB's readers answer; the
    /// slot tries to open one again on its next read. A statement SQLite refuses throws, as it would on GRDB's.
    func read(_ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow]? {
        for slot in slots where slot.tryTake() {
            defer { slot.give() }
            guard let connection = try? slot.connection(path: path) else { return nil }
            return try connection.read(sql, binds)
        }
        return nil
    }

    /// One connection and whether a thread holds it; only the holder touches ``Slot/open``.
    private final class Slot: @unchecked Sendable {
        private let taken = Atomic<Bool>(false)
        /// Opened by the first holder; read and written only while ``taken`` is held.
        private var open: SQLiteReadConnection?

        func tryTake() -> Bool {
            taken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        }

        func give() {
            taken.store(false, ordering: .releasing)
        }

        /// The slot's connection, opened now if it is not yet (only the holder calls it).
        func connection(path: String) throws -> SQLiteReadConnection {
            if let open { return open }
            let connection = try SQLiteReadConnection(path: path)
            open = connection
            return connection
        }
    }
}

/// One read-only connection with its prepared statements; used by one thread at a time (``SQLiteDirectReaders``).
final class SQLiteReadConnection {
    private let handle: OpaquePointer
    /// Prepared statements by SQL text; callers pass the same literal each time, so `==` matches on identity first.
    private var statements: [(sql: String, statement: OpaquePointer)] = []

    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        let opened = sqlite3_open_v2(path, &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteStatementError(code: opened, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        self.handle = handle
    }

    deinit {
        for (_, statement) in statements { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` with `binds`; `nil` when SQLite is busy.
    func read(_ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow]? {
        try SQLiteStatementRunner.run(try prepared(sql), binds, on: handle)
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        for entry in statements where entry.sql == sql { return entry.statement }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteStatementError(code: code == SQLITE_OK ? SQLITE_MISUSE : code, connection: handle)
        }
        statements.append((sql, statement))
        return statement
    }
}
