import Synchronization

/// A wake-up flag one event stream waits on: wakes and keepalive ticks that arrive while the stream is busy are
/// coalesced (never queued without bound), and none is lost between two waits.
final class WakeSignal: Sendable {
    /// Why `wait()` returned.
    enum Event: Equatable {
        /// New deliveries may be pending; `keepalive` says a keepalive interval has passed too.
        case woken(keepalive: Bool)
        /// Only a keepalive interval has passed: nothing says a delivery is pending.
        case keepalive
        /// The stream must end (shutdown, cancellation, or its device was closed).
        case closed
    }

    private struct State {
        var woken = false
        var keepalive = false
        var closed = false
        var waiter: CheckedContinuation<Event, Never>?

        mutating func takeEvent() -> Event? {
            if closed { return .closed }
            guard woken || keepalive else { return nil }
            defer {
                woken = false
                keepalive = false
            }
            return woken ? .woken(keepalive: keepalive) : .keepalive
        }
    }

    private let state = Mutex(State())

    /// New deliveries may be pending.
    func wake() {
        post { $0.woken = true }
    }

    /// A keepalive interval has passed.
    func tick() {
        post { $0.keepalive = true }
    }

    /// Ends the stream; every later `wait()` returns `.closed` at once.
    func close() {
        post { $0.closed = true }
    }

    /// Waits for the next wake, tick or close; returns `.closed` when the waiting task is cancelled.
    func wait() async -> Event {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event, Never>) in
                let ready: Event? = state.withLock { state in
                    if let event = state.takeEvent() { return event }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    private func post(_ change: (inout State) -> Void) {
        let resumption: (CheckedContinuation<Event, Never>, Event)? = state.withLock { state in
            change(&state)
            guard let waiter = state.waiter, let event = state.takeEvent() else { return nil }
            state.waiter = nil
            return (waiter, event)
        }
        if let (waiter, event) = resumption { waiter.resume(returning: event) }
    }
}
