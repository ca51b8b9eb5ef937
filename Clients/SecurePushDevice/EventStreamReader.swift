import Foundation
import SharedModels
import Synchronization

/// Turns the bytes of one direct-channel connection into notification ids: parses its server-sent events, keeps each
/// `push.notify`'s trace context, and yields each id once across reconnects (`seen` carries over).
final class EventStreamReader: Sendable {
    private struct State {
        var parser = ServerSentEventParser()
        var seen: Set<String>
        var opened = false
    }

    private let state: Mutex<State>
    private let traces: TraceContexts
    private let yield: @Sendable (String) -> Void

    init(seen: Set<String>, traces: TraceContexts, yield: @escaping @Sendable (String) -> Void) {
        state = Mutex(State(seen: seen))
        self.traces = traces
        self.yield = yield
    }

    /// The ids yielded so far, those of earlier connections included.
    var seen: Set<String> { state.withLock(\.seen) }
    /// Whether the server answered 200.
    var wasOpened: Bool { state.withLock(\.opened) }

    func opened() { state.withLock { $0.opened = true } }

    /// Feeds the next bytes of the body; yields the ids of the events they complete.
    /// - Throws: ``ServerSentEventParser/Oversized`` (the connection is to be dropped).
    func feed(_ bytes: Data) throws {
        let fresh = try state.withLock { state throws -> [Push.Notify.Params] in
            try state.parser.feed(bytes).compactMap(SecurePushDevice.notify(in:)).filter {
                state.seen.insert($0.notificationId).inserted
            }
        }
        for notify in fresh {
            traces.remember(notify.traceparent, for: notify.notificationId)
            yield(notify.notificationId)
        }
    }
}
