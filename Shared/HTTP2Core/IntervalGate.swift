import Synchronization

/// Lets something through at most once per interval (the first time at once): a log line that a flood of the same
/// event must not repeat thousands of times. Usable from any thread.
public final class IntervalGate: Sendable {
    private let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    /// A gate that opens at most once per `interval`.
    public init(interval: Duration) {
        self.interval = interval
    }

    /// `true` when the interval has passed since the last `true` (or there was none); the caller acts only then.
    public func open(now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { last in
            guard last.map({ now - $0 >= interval }) ?? true else { return false }
            last = now
            return true
        }
    }
}
