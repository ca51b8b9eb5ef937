import SharedModels
import Synchronization

/// The W3C `traceparent` each recently pushed notification came with, so that fetching it joins the send's trace.
///
/// Bounded: the oldest entries are forgotten first (a device handles its ids as they arrive). Only well-formed
/// trace context is kept; anything else is dropped.
final class TraceContexts: Sendable {
    /// Most ids remembered.
    static let capacity = 256

    private struct State {
        var byID: [String: TraceParent] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())

    /// Remembers `traceparent` for `notificationID` when it is a valid W3C value.
    func remember(_ traceparent: String?, for notificationID: String) {
        guard let traceparent, let parsed = TraceParent(traceparent) else { return }
        state.withLock { state in
            if state.byID.updateValue(parsed, forKey: notificationID) == nil { state.order.append(notificationID) }
            if state.order.count > Self.capacity { state.byID[state.order.removeFirst()] = nil }
        }
    }

    /// The trace context `notificationID` came with, if any.
    func traceParent(for notificationID: String) -> TraceParent? {
        state.withLock { $0.byID[notificationID] }
    }
}
