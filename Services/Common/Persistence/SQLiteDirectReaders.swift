import Foundation
import GRDBSQLite
import Synchronization

/// Read-only SQLite connections that the calling thread (a server's event loop) reads on directly, each with its
/// statements prepared once: the fast path of ``SQLiteSQLDatabase/readImmediately(_:_:)``.
///
/// GRDB's synchronous read runs on the calling thread too, but through the pool's semaphore and a reader's serial
/// dispatch queue (a barrier sync, and a futex wake-up whenever another thread touched that queue), converting every
/// value through `DatabaseValue`: a fifth of `store.get`'s CPU. Here a read takes a free connection with one atomic
/// exchange, runs its cached statement, and gives the connection back; when every connection is in use (more
/// threads than ``capacity`` reading at once) the caller reads async instead, never waiting.
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
    func read(_ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow]? {
        for slot in slots where slot.tryTake() {
            defer { slot.give() }
            return try slot.connection(path: path).read(sql, binds)
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

/// A failed SQLite call on a direct reader: its result code and SQLite's message.
public struct SQLiteReadError: Error, CustomStringConvertible {
    /// SQLite's (extended) result code.
    public let code: Int32
    /// `sqlite3_errmsg` at the time.
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }
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
            throw SQLiteReadError(code: opened, message: message)
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
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, bind) in binds.enumerated() {
            try check(Self.bind(bind.sqlValue, at: Int32(offset + 1), to: statement))
        }
        var rows: [SQLRow] = []
        let columns = sqlite3_column_count(statement)
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                var values: [SQLValue] = []
                values.reserveCapacity(Int(columns))
                for column in 0..<columns { values.append(Self.value(statement, column)) }
                rows.append(SQLRow(values))
            case SQLITE_DONE:
                return rows
            case let code where code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED:
                return nil
            case let code:
                throw SQLiteReadError(code: code, message: String(cString: sqlite3_errmsg(handle)))
            }
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        for entry in statements where entry.sql == sql { return entry.statement }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil))
        guard let statement else { throw SQLiteReadError(code: SQLITE_MISUSE, message: "empty statement: \(sql)") }
        statements.append((sql, statement))
        return statement
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw SQLiteReadError(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ value: SQLValue, at index: Int32, to statement: OpaquePointer) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(statement, index)
        case .integer(let integer): return sqlite3_bind_int64(statement, index, integer)
        case .text(var text):
            return text.withUTF8 { utf8 in
                sqlite3_bind_text(statement, index, utf8.baseAddress, Int32(utf8.count), transient)
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                // A zero-length blob still binds a blob, not NULL.
                let start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
                return sqlite3_bind_blob(statement, index, start, Int32(bytes.count), transient)
            }
        }
    }

    /// Column values as ``SQLiteSQLDatabase/value(_:)`` converts GRDB's.
    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        // No column of ours is REAL; a stray one keeps its integral part rather than failing the read.
        case SQLITE_FLOAT: return .integer(Int64(sqlite3_column_double(statement, column)))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}
