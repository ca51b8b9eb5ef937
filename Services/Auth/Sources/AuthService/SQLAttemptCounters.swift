import Foundation
import ServiceCore

/// ``AttemptCounters`` in the database (table `attempt_counters`, times in milliseconds), shared by every auth replica
/// on PostgreSQL. auth on SQLite is one process and keeps its counts in ``InMemoryAttemptCounters``.
///
/// `reserve` is one upsert: `ON CONFLICT DO UPDATE` locks the row, and its `WHERE` is checked against the row as the
/// previous writer left it, so replicas counting at once can never together pass the limit.
public struct SQLAttemptCounters: AttemptCounters {
    let database: any SQLDatabase

    /// Uses a database migrated with ``AuthMigrations/all``.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func reserve(_ key: String, limit: Int, window: TimeInterval, at now: Date) async throws -> AttemptCount {
        let nowMilliseconds = now.millisecondsSince1970
        let counted = try await database.write(
            """
            INSERT INTO attempt_counters (counter_key, count, expires_at) VALUES (?, 1, ?)
            ON CONFLICT (counter_key) DO UPDATE SET
                count = CASE WHEN attempt_counters.expires_at <= ? THEN 1 ELSE attempt_counters.count + 1 END,
                expires_at = CASE WHEN attempt_counters.expires_at <= ? THEN excluded.expires_at
                    ELSE attempt_counters.expires_at END
            WHERE attempt_counters.expires_at <= ? OR attempt_counters.count < ?
            RETURNING count
            """,
            [
                key, now.addingTimeInterval(window).millisecondsSince1970, nowMilliseconds, nowMilliseconds,
                nowMilliseconds, limit,
            ])
        if let row = counted.first { return .counted(try row.decode(0)) }
        guard
            let live = try await database.readOne(
                "SELECT expires_at FROM attempt_counters WHERE counter_key = ?", [key])
        else {
            // Purged between the two statements: the window just ended.
            return .refused(retryAfterSeconds: 1)
        }
        return .refused(retryAfterSeconds: AttemptCount.seconds(until: try live.date(0), from: now))
    }

    public func release(_ key: String, at now: Date) async throws {
        _ = try await database.execute(
            "UPDATE attempt_counters SET count = count - 1 WHERE counter_key = ? AND count > 0 AND expires_at > ?",
            [key, now.millisecondsSince1970])
    }

    public func reset(_ key: String) async throws {
        _ = try await database.execute("DELETE FROM attempt_counters WHERE counter_key = ?", [key])
    }

    public func purge(expiredBefore now: Date) async throws -> Int {
        try await database.execute("DELETE FROM attempt_counters WHERE expires_at <= ?", [now.millisecondsSince1970])
    }
}
