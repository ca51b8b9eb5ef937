import Foundation

/// Counts failed sign-ins per username (or client id) and refuses further attempts for a while after too many.
///
/// Unknown names are counted like known ones, so the limit itself reveals nothing. State is in memory and bounded;
/// it resets on restart, which is acceptable for slowing down online guessing.
public actor LoginThrottle {
    private struct Window {
        var failures: Int
        var startedAt: Date
    }

    /// Failures allowed within `window` before attempts are refused; `0` turns throttling off.
    public let maxFailures: Int
    /// How long failures are remembered, in seconds, counted from the first failure.
    public let window: TimeInterval
    private let capacity: Int
    private var windows: [String: Window] = [:]

    public init(maxFailures: Int, window: TimeInterval, capacity: Int = 10_000) {
        self.maxFailures = maxFailures
        self.window = window
        self.capacity = capacity
    }

    /// Throws `AuthError.rateLimited` while `key` is locked out.
    public func check(_ key: String, at now: Date) throws(AuthError) {
        guard maxFailures > 0, let entry = windows[key] else { return }
        let endsAt = entry.startedAt.addingTimeInterval(window)
        guard now < endsAt else {
            windows[key] = nil
            return
        }
        if entry.failures >= maxFailures {
            throw .rateLimited(retryAfterSeconds: max(1, Int(endsAt.timeIntervalSince(now).rounded(.up))))
        }
    }

    /// Counts a failed attempt for `key`.
    public func recordFailure(_ key: String, at now: Date) {
        guard maxFailures > 0 else { return }
        if var entry = windows[key], now < entry.startedAt.addingTimeInterval(window) {
            entry.failures += 1
            windows[key] = entry
            return
        }
        if windows.count >= capacity { evict(at: now) }
        windows[key] = Window(failures: 1, startedAt: now)
    }

    /// Forgets the failures of `key` after a successful attempt.
    public func reset(_ key: String) {
        windows[key] = nil
    }

    private func evict(at now: Date) {
        windows = windows.filter { now < $0.value.startedAt.addingTimeInterval(window) }
        // Still full of live windows: drop the oldest half rather than grow without bound.
        if windows.count >= capacity {
            let oldest = windows.sorted { $0.value.startedAt < $1.value.startedAt }.prefix(capacity / 2).map(\.key)
            for key in oldest { windows[key] = nil }
        }
    }
}
