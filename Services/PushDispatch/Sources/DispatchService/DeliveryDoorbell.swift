import Synchronization

/// Wakes a sleeping delivery worker: `push.send` rings it after committing jobs, so the worker never polls.
///
/// Rings are coalesced (a ring while the worker is busy makes its next wait return at once) and never lost.
/// One worker waits on a doorbell at a time.
public final class DeliveryDoorbell: Sendable {
    private struct State {
        var rung = false
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// New jobs may be due: ends the current wait, or the next one.
    public func ring() {
        resume(after: { $0.rung = true })
    }

    /// The worker must stop (graceful shutdown): every wait, now and later, returns at once.
    func close() {
        resume(after: { $0.closed = true })
    }

    /// Whether `close()` was called.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Waits until a ring, a close, cancellation of the waiting task, or `timeout` has passed.
    func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForRing() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    // Checked under the lock: a cancellation after this point finds the waiter and resumes it.
                    if state.rung || state.closed || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }

    private func resume(after change: (inout State) -> Void) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            change(&state)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.rung = false
            return waiter
        }
        waiter?.resume()
    }
}
