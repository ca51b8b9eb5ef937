/// A database that can run a read-only statement without suspending: SQLite, whose reads are a few microseconds on
/// a reader connection of the calling thread. PostgreSQL reads are network round trips and stay async, so it does
/// not conform; callers check for this capability and take their async path without it.
public protocol SQLImmediateReading: Sendable {
    /// Runs one read-only statement on the calling thread and returns its rows, or `nil` at once when no reader
    /// connection is idle (the caller then reads async). It blocks that thread only while the statement runs, never
    /// to wait for a reader: async reads hold theirs until their task resumes, which a blocked thread could prevent.
    func readImmediately(_ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow]?
}

extension SQLDatabase {
    /// A short read by key (an indexed lookup of a few rows): on the calling thread where the database allows
    /// (``SQLImmediateReading``, SQLite, with a reader idle), saving the hop to a reader's queue and back; async
    /// otherwise (PostgreSQL, or every SQLite reader busy).
    public func readImmediatelyIfPossible(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        if let reader = self as? any SQLImmediateReading, let rows = try reader.readImmediately(sql, binds) {
            return rows
        }
        return try await read(sql, binds)
    }
}

extension SQLDatabase {
    /// Reads by at most this many keys are short enough for ``read(_:_:keys:)`` to run on the calling thread.
    public static var immediateReadKeyLimit: Int { 8 }

    /// A read by `keys` keys in one statement: on the calling thread, as ``readImmediatelyIfPossible(_:_:)``, when
    /// they are few (a wake-up of one device is the usual case); async when they are many (a send to a user with
    /// thousands of connected devices reads them all at once, which may take milliseconds).
    public func read(_ sql: String, _ binds: [any SQLBindable], keys: Int) async throws -> [SQLRow] {
        keys <= Self.immediateReadKeyLimit
            ? try await readImmediatelyIfPossible(sql, binds) : try await read(sql, binds)
    }
}
