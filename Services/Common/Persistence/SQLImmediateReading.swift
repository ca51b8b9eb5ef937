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
