import Foundation
import GRDBSQLite

/// Runs a prepared SQLite statement with our values (``SQLValue``) and reads its rows, straight through SQLite's C
/// API: used for every statement of ``SQLiteSQLDatabase``, on GRDB's connections (their cached statements) and on
/// ``SQLiteDirectReaders``' own. GRDB's way converts every bound value into `StatementArguments` and every column
/// through `DatabaseValue` and `Row`: on the fetch path, with its audit entries written a hundred rows a statement,
/// that conversion cost more than SQLite's own work.
enum SQLiteStatementRunner {
    /// Binds `binds` to `statement` (1-based, in order), steps it to its end and returns its rows; `nil` when SQLite
    /// answers busy or locked. The statement is reset and its bindings cleared before this returns, whatever happened,
    /// so it holds no snapshot and no value afterwards.
    static func run(_ statement: OpaquePointer, _ binds: [any SQLBindable], on connection: OpaquePointer) throws
        -> [SQLRow]?
    {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        // GRDB refused a call with the wrong number of arguments; SQLite alone would run it with NULLs for the rest.
        let parameters = Int(sqlite3_bind_parameter_count(statement))
        guard binds.count == parameters else {
            throw SQLiteStatementError(
                code: SQLITE_RANGE,
                message:
                    "the statement takes \(parameters) arguments, \(binds.count) given: \(String(cString: sqlite3_sql(statement)))"
            )
        }
        for (offset, bind) in binds.enumerated() {
            let code = Self.bind(bind.sqlValue, at: Int32(offset + 1), to: statement)
            guard code == SQLITE_OK else { throw SQLiteStatementError(code: code, connection: connection) }
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
                throw SQLiteStatementError(code: code, connection: connection)
            }
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

    /// A column's value; a REAL (no column of ours is one) keeps its integral part rather than failing the read.
    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .integer(Int64(sqlite3_column_double(statement, column)))
        case SQLITE_TEXT:
            // The pointer first, then its length (SQLite's documented order).
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}

/// A failed SQLite call: its (extended) result code and SQLite's message.
public struct SQLiteStatementError: Error, CustomStringConvertible {
    /// SQLite's extended result code (e.g. 2067, `SQLITE_CONSTRAINT_UNIQUE`).
    public let code: Int32
    /// SQLite's message at the time.
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The error `connection` reports for `code`.
    init(code: Int32, connection: OpaquePointer) {
        self.init(code: code, message: String(cString: sqlite3_errmsg(connection)))
    }

    public var description: String { "SQLite error \(code): \(message)" }
}
