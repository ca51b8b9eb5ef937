import Synchronization

/// A coalescing wake-up between tasks: a delivery worker sleeps on one, rung after `push.send`.
///
/// A wake posted while no task waits is kept and ends the next wait, so none is lost between two waits; many coalesce
/// into one event (nothing queues without bound). Every task waiting when one is posted receives it. `close()` ends
/// every wait, now and later. A wait ends on its own after its timeout or when its task is cancelled, and the signal
/// stays usable.
public final class WakeUpSignal: Sendable {
    /// Why a wait returned.
    public enum Event: Equatable, Sendable {
        /// Work may be pending.
        case woken
        /// The signal was closed (shutdown).
        case closed
    }

    private struct State {
        var woken = false
        var closed = false
        var nextWaiterID: UInt64 = 0
        /// Resumed with `nil` when their wait was interrupted (timeout or cancellation).
        var waiters: [UInt64: CheckedContinuation<Event?, Never>] = [:]

        mutating func takeEvent() -> Event? {
            if closed { return .closed }
            guard woken else { return nil }
            woken = false
            return .woken
        }
    }

    private let state = Mutex(State())

    /// A signal with nothing posted.
    public init() {}

    /// Work may be pending: ends the current waits, or the next one.
    public func wake() {
        post { $0.woken = true }
    }

    /// Ends every wait, now and later, with `.closed`.
    public func close() {
        post { $0.closed = true }
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// How many tasks are waiting now (tests, diagnostics).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Waits at most `timeout` for the next wake or close; `nil` when the time passed or the waiting task was
    /// cancelled first. Either leaves the signal as it was: a later wake still ends the next wait.
    public func wait(upTo timeout: Duration) async -> Event? {
        await withTaskGroup(of: Event?.self) { group in
            group.addTask { await self.next() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            // Both children are collected: an event that reached the waiter just as the time ran out is returned,
            // not dropped.
            var event: Event?
            while let result = await group.next() {
                group.cancelAll()
                event = event ?? result
            }
            return event
        }
    }

    private func next() async -> Event? {
        let id = state.withLock { state in
            defer { state.nextWaiterID &+= 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                // Decided under the lock: a post or a cancellation after this point finds the waiter and resumes it.
                let ready: Event?? = state.withLock { state in
                    if let event = state.takeEvent() { return .some(event) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    private func post(_ change: (inout State) -> Void) {
        let resumption: ([CheckedContinuation<Event?, Never>], Event)? = state.withLock { state in
            change(&state)
            guard !state.waiters.isEmpty, let event = state.takeEvent() else { return nil }
            defer { state.waiters.removeAll() }
            return (Array(state.waiters.values), event)
        }
        if let (waiters, event) = resumption {
            for waiter in waiters { waiter.resume(returning: event) }
        }
    }
}
