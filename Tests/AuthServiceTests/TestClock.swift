import Foundation
import Synchronization

/// A clock tests move by hand, so lifetimes can be tested without sleeping.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    /// The current time.
    var now: Date { current.withLock { $0 } }

    /// Moves the clock forward (or backward, with a negative value).
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
