import Synchronization

/// A gate test doubles hold calls at: while it is closed, ``pass()`` waits until ``open()``; while open it returns at
/// once. Counts every call that reached it, held or not.
public final class CallGate: Sendable {
    private struct State {
        var closed = false
        var arrivals = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    public init() {}

    /// How many calls reached the gate (held or let through).
    public var arrivals: Int { state.withLock { $0.arrivals } }
    /// How many calls wait at the gate now.
    public var heldCount: Int { state.withLock { $0.waiting.count } }

    /// Holds every following call until ``open()``.
    public func close() { state.withLock { $0.closed = true } }

    /// Lets the held calls (and later ones) through.
    public func open() {
        let waiting = state.withLock { state in
            state.closed = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once the gate is open.
    public func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let held = state.withLock { state in
                state.arrivals += 1
                if state.closed { state.waiting.append(continuation) }
                return state.closed
            }
            if !held { continuation.resume() }
        }
    }
}
