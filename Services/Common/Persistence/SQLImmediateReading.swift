/// A database that can run a read-only statement without suspending: SQLite, whose reads are a few microseconds on
/// a reader connection of the calling thread. PostgreSQL reads are network round trips and stay async, so it does
/// not conform; callers check for this capability and take their async path without it.
public protocol SQLImmediateReading: Sendable {
    /// Runs one read-only statement on the calling thread and returns its rows. It blocks that thread while the
    /// statement runs, and while every reader connection is busy (at most the pool's reader count run at once).
    func readImmediately(_ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow]
}

extension SQLDatabase {
    /// A short read by key (an indexed lookup of a few rows): on the calling thread where the database allows
    /// (``SQLImmediateReading``, SQLite), saving the hop to a reader's queue and back; async elsewhere (PostgreSQL).
    public func readImmediatelyIfPossible(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        if let reader = self as? any SQLImmediateReading { return try reader.readImmediately(sql, binds) }
        return try await read(sql, binds)
    }
}
