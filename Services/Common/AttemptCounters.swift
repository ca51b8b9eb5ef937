import Foundation

/// Where rate limits keep their counts (auth's sign-in limits, the store's proofs per address):
/// ``InMemoryAttemptCounters`` for one process (SQLite), ``SQLAttemptCounters`` shared by every replica (PostgreSQL).
///
/// Each key counts within a fixed window that starts with its first count. `reserve` is atomic: concurrent callers
/// can never together pass `limit`, which is what lets a limit be checked *before* the password work.
public protocol AttemptCounters: Sendable {
    /// Adds `cost` (at least 1) to `key` unless that would take it past `limit` in its current window; a key with no
    /// live window starts one of `window` seconds at `now`. A `cost` above `limit` is always refused.
    func reserve(_ key: String, cost: Int, limit: Int, window: TimeInterval, at now: Date) async throws -> AttemptCount
    /// Takes `cost` back from `key` (the attempts it counted turned out not to count), never below zero.
    func release(_ key: String, cost: Int, at now: Date) async throws
    /// Forgets `key`.
    func reset(_ key: String) async throws
    /// Drops the keys whose window ended; returns how many.
    func purge(expiredBefore now: Date) async throws -> Int
}

extension AttemptCounters {
    /// Adds one to `key` unless it already holds `limit` in its current window (``reserve(_:cost:limit:window:at:)``).
    public func reserve(_ key: String, limit: Int, window: TimeInterval, at now: Date) async throws -> AttemptCount {
        try await reserve(key, cost: 1, limit: limit, window: window, at: now)
    }

    /// Takes one back from `key` (the attempt it counted turned out not to be a failure).
    public func release(_ key: String, at now: Date) async throws {
        try await release(key, cost: 1, at: now)
    }
}

/// The outcome of ``AttemptCounters/reserve(_:cost:limit:window:at:)``.
public enum AttemptCount: Sendable, Hashable {
    /// Counted; the key now holds this many in its window.
    case counted(Int)
    /// Refused: the key holds `limit` already, for this many more seconds.
    case refused(retryAfterSeconds: Int)

    /// Whole seconds until `expiresAt`, at least 1 (a client told to retry in 0 s would retry at once).
    public static func seconds(until expiresAt: Date, from now: Date) -> Int {
        max(1, Int(expiresAt.timeIntervalSince(now).rounded(.up)))
    }
}
