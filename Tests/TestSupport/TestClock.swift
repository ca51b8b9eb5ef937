import Foundation
import Synchronization

/// A clock tests move by hand, so lifetimes and expiry can be tested without sleeping.
///
/// By default it starts now, on a whole second: dates travel as ISO 8601 without fractions (`RPCCodec`), so wire
/// dates compare equal only while the clock moves by whole seconds.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
        current = Mutex(start)
    }

    /// The current time.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward (or backward, with a negative value).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
