import Foundation

/// ``AttemptCounters`` in this process's memory, bounded: the single-process (SQLite) deployment.
///
/// Kept out of SQLite on purpose: every unauthenticated request updates a counter, and in SQLite each update would
/// queue behind the single writer with the real writes (sign-ins, refresh rotations). One process is the only reader,
/// so memory is the shared state; a restart forgets the counts, as it did before.
public actor InMemoryAttemptCounters: AttemptCounters {
    private struct Entry {
        var count: Int
        var expiresAt: Date
    }

    private let capacity: Int
    private var entries: [String: Entry] = [:]

    /// - Parameter capacity: most keys held; when full, expired keys go first, then the oldest half.
    public init(capacity: Int = 100_000) {
        self.capacity = max(2, capacity)
    }

    public func reserve(_ key: String, cost: Int, limit: Int, window: TimeInterval, at now: Date) -> AttemptCount {
        let cost = max(1, cost)
        if var entry = entries[key], now < entry.expiresAt {
            guard entry.count + cost <= limit else {
                return .refused(retryAfterSeconds: AttemptCount.seconds(until: entry.expiresAt, from: now))
            }
            entry.count += cost
            entries[key] = entry
            return .counted(entry.count)
        }
        guard cost <= limit else {
            return .refused(retryAfterSeconds: AttemptCount.seconds(until: now + window, from: now))
        }
        if entries[key] == nil, entries.count >= capacity { evict(at: now) }
        entries[key] = Entry(count: cost, expiresAt: now.addingTimeInterval(window))
        return .counted(cost)
    }

    public func release(_ key: String, cost: Int, at now: Date) {
        guard var entry = entries[key], now < entry.expiresAt, entry.count > 0 else { return }
        entry.count = max(0, entry.count - max(1, cost))
        entries[key] = entry
    }

    public func reset(_ key: String) {
        entries[key] = nil
    }

    public func purge(expiredBefore now: Date) -> Int {
        let before = entries.count
        entries = entries.filter { now < $0.value.expiresAt }
        return before - entries.count
    }

    private func evict(at now: Date) {
        _ = purge(expiredBefore: now)
        // Still full of live windows: drop the oldest half rather than grow without bound.
        if entries.count >= capacity {
            let oldest = entries.sorted { $0.value.expiresAt < $1.value.expiresAt }.prefix(capacity / 2).map(\.key)
            for key in oldest { entries[key] = nil }
        }
    }
}
