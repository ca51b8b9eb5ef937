import Foundation
import Synchronization
import TestSupport

/// A clock a test can move forward: the harness's time source.
protocol AdjustableClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Moves the clock forward by `seconds`.
    func advance(by seconds: TimeInterval)
}

extension TestClock: AdjustableClock {}

/// Real time plus an offset a test can jump forward: delivery workers sleep in real time (so their retries come due
/// on their own), while a test can still make a notification expire without waiting for it.
final class LiveClock: AdjustableClock {
    private let offset = Mutex<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
