import JSONRPC

/// What differs between the backends when transactions coordinate with each other (row locks, named locks,
/// notifications), for repositories whose processes share one database. SQLite has one process per file and a single
/// writer that already runs one transaction at a time, so each of these is empty or does nothing there.
extension SQLDialect {
    /// Appended to a `SELECT` that locks the rows it reads until the transaction ends, so a concurrent transaction
    /// that wants them waits: `FOR UPDATE` on PostgreSQL; empty on SQLite.
    public var lockRows: String { self == .postgresql ? "FOR UPDATE" : "" }

    /// A subquery whose rows are the strings of the JSON array bound to its one placeholder, for `x IN (…)` with a
    /// list of any length as one (cached) statement.
    public var jsonTextArray: String {
        self == .postgresql
            ? "SELECT jsonb_array_elements_text(CAST(? AS jsonb))" : "SELECT value FROM json_each(?)"
    }

    /// A subquery whose rows are the integers of the JSON array bound to its one placeholder (``jsonIntegerList(_:)``
    /// writes it), for `x IN (…)` on an integer column with a list of any length as one (cached) statement.
    public var jsonIntegerArray: String {
        self == .postgresql
            ? "SELECT CAST(jsonb_array_elements_text(CAST(? AS jsonb)) AS bigint)" : "SELECT value FROM json_each(?)"
    }

    /// `integers` as the JSON array ``jsonIntegerArray`` reads.
    public static func jsonIntegerList(_ integers: some Sequence<Int64>) -> String {
        var writer = JSONWriter(capacity: 2 + 12 * integers.underestimatedCount)
        writer.beginArray()
        for integer in integers { writer.integer(integer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A statement that takes the lock named by its one placeholder until the transaction ends (PostgreSQL's
    /// transaction-scoped advisory lock, keyed by `hashtextextended(name, 0)`); `nil` on SQLite.
    var transactionLock: String? {
        self == .postgresql ? "SELECT 1 FROM pg_advisory_xact_lock(hashtextextended(?, 0))" : nil
    }

    /// A statement that sends its second placeholder on the channel named by its first when the transaction
    /// commits (PostgreSQL's `pg_notify`, heard by `LISTEN`ers on every replica); `nil` on SQLite.
    var notification: String? { self == .postgresql ? "SELECT 1 FROM pg_notify(?, ?)" : nil }
}

extension SQLTransaction {
    /// Holds the lock `name` until this transaction ends: transactions taking the same name run one after another,
    /// on every replica. On SQLite transactions already do, so this does nothing.
    public func lock(_ name: String) async throws {
        guard let sql = dialect.transactionLock else { return }
        _ = try await query(sql, [name])
    }

    /// Sends `payload` on `channel` to every listening replica when this transaction commits (never if it rolls
    /// back). On SQLite, whose one process already knows, this does nothing.
    public func notify(_ channel: String, _ payload: String) async throws {
        guard let sql = dialect.notification else { return }
        _ = try await query(sql, [channel, payload])
    }
}
