import Synchronization

/// Hands out 0, 1, 2, … to concurrent workers.
final class TicketCounter: Sendable {
    private let value = Atomic(0)

    /// The next ticket.
    func next() -> Int { value.add(1, ordering: .relaxed).oldValue }
}

/// Values collected from concurrent tasks.
final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }

    var all: [Value] { values.withLock { $0 } }
}
