import Foundation
import Synchronization

/// A clock tests move by hand, so expiry can be tested without sleeping.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    /// The current time.
    var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
