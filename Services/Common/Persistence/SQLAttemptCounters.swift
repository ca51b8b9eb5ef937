import Foundation

/// ``AttemptCounters`` in a database table (auth's `attempt_counters`; times in milliseconds), shared by every
/// replica of a service on PostgreSQL: auth's sign-in limits, the store's proofs per address. A service on SQLite is
/// one process and keeps its counts in ``InMemoryAttemptCounters``.
///
/// `reserve` is one upsert: `ON CONFLICT DO UPDATE` locks the row, and its `WHERE` is checked against the row as the
/// previous writer left it, so replicas counting at once can never together pass the limit.
public struct SQLAttemptCounters: AttemptCounters {
    let database: any SQLDatabase
    let table: String

    /// Uses a database with the counters table `table` (auth's `attempt_counters`; another service's own name,
    /// created by ``tableStatements(_:table:)``: services may share one PostgreSQL schema).
    public init(database: any SQLDatabase, table: String = "attempt_counters") {
        self.database = database
        self.table = table
    }

    /// The statements that create a counters table named `table` (times in milliseconds), for a service's migration.
    public static func tableStatements(_ dialect: SQLDialect, table: String) -> [String] {
        [
            """
            CREATE TABLE \(table) (
                counter_key TEXT PRIMARY KEY NOT NULL,
                count \(dialect.integerType) NOT NULL,
                expires_at \(dialect.integerType) NOT NULL
            )
            """,
            "CREATE INDEX \(table)_by_expiry ON \(table) (expires_at)",
        ]
    }

    public func reserve(_ key: String, cost: Int, limit: Int, window: TimeInterval, at now: Date) async throws
        -> AttemptCount
    {
        let cost = max(1, cost)
        let nowMilliseconds = now.millisecondsSince1970
        guard cost <= limit else {
            return .refused(retryAfterSeconds: AttemptCount.seconds(until: now.addingTimeInterval(window), from: now))
        }
        let counted = try await database.write(
            """
            INSERT INTO \(table) (counter_key, count, expires_at) VALUES (?, ?, ?)
            ON CONFLICT (counter_key) DO UPDATE SET
                count = CASE WHEN \(table).expires_at <= ? THEN excluded.count ELSE \(table).count + excluded.count END,
                expires_at = CASE WHEN \(table).expires_at <= ? THEN excluded.expires_at
                    ELSE \(table).expires_at END
            WHERE \(table).expires_at <= ? OR \(table).count + excluded.count <= ?
            RETURNING count
            """,
            [
                key, cost, now.addingTimeInterval(window).millisecondsSince1970, nowMilliseconds, nowMilliseconds,
                nowMilliseconds, limit,
            ])
        if let row = counted.first { return .counted(try row.decode(0)) }
        guard
            let live = try await database.readOne(
                "SELECT expires_at FROM \(table) WHERE counter_key = ?", [key])
        else {
            // Purged between the two statements: the window just ended.
            return .refused(retryAfterSeconds: 1)
        }
        return .refused(
            retryAfterSeconds: AttemptCount.seconds(
                until: Date(millisecondsSince1970: try live.decode(0)), from: now))
    }

    public func release(_ key: String, cost: Int, at now: Date) async throws {
        _ = try await database.execute(
            """
            UPDATE \(table) SET count = CASE WHEN count > ? THEN count - ? ELSE 0 END
            WHERE counter_key = ? AND count > 0 AND expires_at > ?
            """, [max(1, cost), max(1, cost), key, now.millisecondsSince1970])
    }

    public func reset(_ key: String) async throws {
        _ = try await database.execute("DELETE FROM \(table) WHERE counter_key = ?", [key])
    }

    public func purge(expiredBefore now: Date) async throws -> Int {
        try await database.execute("DELETE FROM \(table) WHERE expires_at <= ?", [now.millisecondsSince1970])
    }
}
