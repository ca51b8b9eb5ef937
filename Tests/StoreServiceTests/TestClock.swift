import Foundation
import Synchronization

/// A clock tests move by hand, so lifetimes can be tested without sleeping.
///
/// It starts on a whole second because dates travel as ISO 8601 without fractions (`RPCCodec`):
/// compare wire dates only after moving the clock by whole seconds.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    /// The current time.
    var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
