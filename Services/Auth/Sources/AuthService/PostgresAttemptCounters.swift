import Foundation
import PostgresNIO
import ServiceCore

/// ``AttemptCounters`` in PostgreSQL (table `attempt_counters`), shared by every auth replica.
///
/// `reserve` is one upsert: `ON CONFLICT DO UPDATE` locks the row, and its `WHERE` is checked against the row as the
/// previous writer left it, so replicas counting at once can never together pass the limit.
public struct PostgresAttemptCounters: AttemptCounters {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    var logger: Logger { database.logger }

    public func reserve(_ key: String, limit: Int, window: TimeInterval, at now: Date) async throws -> AttemptCount {
        let expiresAt = now.addingTimeInterval(window)
        return try await database.withClient { client in
            let rows = try await client.query(
                """
                INSERT INTO attempt_counters (counter_key, count, expires_at) VALUES (\(key), 1, \(expiresAt))
                ON CONFLICT (counter_key) DO UPDATE SET
                    count = CASE WHEN attempt_counters.expires_at <= \(now) THEN 1
                        ELSE attempt_counters.count + 1 END,
                    expires_at = CASE WHEN attempt_counters.expires_at <= \(now) THEN EXCLUDED.expires_at
                        ELSE attempt_counters.expires_at END
                WHERE attempt_counters.expires_at <= \(now) OR attempt_counters.count < \(limit)
                RETURNING count
                """, logger: logger)
            for try await count in rows.decode(Int.self) { return .counted(count) }
            let live = try await client.query(
                "SELECT expires_at FROM attempt_counters WHERE counter_key = \(key)", logger: logger)
            for try await expires in live.decode(Date.self) {
                return .refused(retryAfterSeconds: AttemptCount.seconds(until: expires, from: now))
            }
            // Purged between the two statements: the window just ended.
            return .refused(retryAfterSeconds: 1)
        }
    }

    public func release(_ key: String, at now: Date) async throws {
        try await database.withClient { client in
            try await client.query(
                """
                UPDATE attempt_counters SET count = count - 1
                WHERE counter_key = \(key) AND count > 0 AND expires_at > \(now)
                """, logger: logger)
        }
    }

    public func reset(_ key: String) async throws {
        try await database.withClient { client in
            try await client.query("DELETE FROM attempt_counters WHERE counter_key = \(key)", logger: logger)
        }
    }

    public func purge(expiredBefore now: Date) async throws -> Int {
        try await database.withClient { client in
            let rows = try await client.query(
                "WITH gone AS (DELETE FROM attempt_counters WHERE expires_at <= \(now) RETURNING 1) SELECT count(*) FROM gone",
                logger: logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }
}
