import CoreMetrics
import Synchronization

/// A service database's connections in use and the calls waiting for one
/// (`securepush_database_connections_in_use`, `securepush_database_connections_waiting`), counted where our code
/// enters GRDB or postgres-nio: a call waits from the moment it asks until its closure runs on a connection, then
/// uses one until that closure returns.
///
/// The hot path is two relaxed atomic updates of a gauge per change; with metrics off the databases hold no
/// instance at all (``make(backend:factory:)`` returns `nil`).
public struct DatabasePoolMetrics: Sendable {
    let inUse: Meter
    let waiting: Meter

    /// Gauges labelled `backend` (`sqlite` or `postgresql`), at 0 from the start. They only ever move by one up and
    /// one down, never set, so several databases recording into one registry add up instead of resetting each other.
    public init(backend: SQLDialect, factory: any MetricsFactory) {
        let dimensions = [("backend", backend.name)]
        inUse = Meter(label: "securepush_database_connections_in_use", dimensions: dimensions, factory: factory)
        waiting = Meter(label: "securepush_database_connections_waiting", dimensions: dimensions, factory: factory)
    }

    /// The gauges, or `nil` when `factory` records nothing (metrics off): then nothing is counted at all.
    public static func make(backend: SQLDialect, factory: any MetricsFactory) -> DatabasePoolMetrics? {
        factory is NOOPMetricsHandler ? nil : DatabasePoolMetrics(backend: backend, factory: factory)
    }

    /// One call's turn, counted as waiting from now until ``DatabasePoolTurn/start()``: call `start()` first thing in
    /// the closure that runs on the connection, and `end()` both when it returns and when the call does (a `defer`
    /// each), so that a call cancelled while it waits is counted out too.
    func turn() -> DatabasePoolTurn { DatabasePoolTurn(self) }
}

/// One call's turn at the pool: waiting, then using a connection, then done. ``end()`` may come without
/// ``start()`` (the call was cancelled or timed out while waiting) and more than once; each gauge moves once.
final class DatabasePoolTurn: Sendable {
    private let metrics: DatabasePoolMetrics
    /// 0 waiting, 1 using a connection, 2 done.
    private let state = Atomic<UInt8>(0)

    fileprivate init(_ metrics: DatabasePoolMetrics) {
        self.metrics = metrics
        metrics.waiting.increment()
    }

    /// The call has its connection.
    func start() {
        guard state.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else { return }
        metrics.waiting.decrement()
        metrics.inUse.increment()
    }

    /// The call gave its connection back, or stopped waiting for one.
    func end() {
        switch state.exchange(2, ordering: .relaxed) {
        case 0: metrics.waiting.decrement()
        case 1: metrics.inUse.decrement()
        default: break
        }
    }
}
