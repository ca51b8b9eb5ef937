import Foundation
import Synchronization

/// The webhook events this process recorded whose time is still inside the event feed's window: the feed reads each
/// change several times (every look reaches back `lookback`), and what it recorded already is not written again.
/// Entries older than the window are forgotten, so it holds at most a window's events.
final class RecentlyRecorded: Sendable {
    /// Event time (ms) by "endpoint id, event id".
    private let recorded = Mutex<[String: Int64]>([:])

    /// The messages not recorded lately.
    func unseen(_ messages: [WebhookMessage]) -> [WebhookMessage] {
        recorded.withLock { recorded in messages.filter { recorded[Self.key($0)] == nil } }
    }

    /// Remembers messages recorded (or found recorded already).
    func remember(_ messages: [WebhookMessage]) {
        recorded.withLock { recorded in
            for message in messages { recorded[Self.key(message)] = message.createdAt.millisecondsSince1970 }
        }
    }

    /// Forgets events whose time is before `cutoff`: no look reaches that far back again.
    func forget(before cutoff: Date) {
        let limit = cutoff.millisecondsSince1970
        recorded.withLock { recorded in recorded = recorded.filter { $0.value >= limit } }
    }

    /// How many events are remembered (tests).
    var count: Int { recorded.withLock { $0.count } }

    private static func key(_ message: WebhookMessage) -> String {
        message.endpointID + " " + message.eventID
    }
}
