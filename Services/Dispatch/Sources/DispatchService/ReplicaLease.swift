import Foundation
import Logging
import ServiceCore
import ServiceLifecycle

/// Keeps this push-dispatch replica's lease in the shared database alive (PostgreSQL): every `timeout / 5` it
/// extends it to `timeout` from now. When a replica is killed mid-`push.send`, its lease lapses within `timeout`,
/// and a retry of that send on another replica takes the idempotency reservation over at once instead of answering
/// `-32009` until `SECUREPUSH_IDEMPOTENCY_TIMEOUT` has passed.
///
/// Replicas compare a lease with their own clock: their clocks must agree to well within `timeout` (NTP), as for
/// delivery leases.
public struct ReplicaLease: Service {
    let deliveries: SQLDeliveryRepository
    let timeout: Duration
    let forgetAfter: Duration
    let now: @Sendable () -> Date
    let logger: Logger

    /// - Parameters:
    ///   - deliveries: the repository whose ``SQLDeliveryRepository/replicaID`` owns this process's reservations.
    ///   - timeout: how long the lease outlives its last renewal (`SECUREPUSH_REPLICA_LEASE`).
    ///   - forgetAfter: how long a lapsed replica's row is kept (at least the idempotency timeout).
    ///   - now: the clock written into the lease.
    ///   - logger: logs failed renewals.
    public init(
        deliveries: SQLDeliveryRepository, timeout: Duration, forgetAfter: Duration,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.deliveries = deliveries
        self.timeout = timeout
        self.forgetAfter = forgetAfter
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        try await PeriodicService(name: "dispatch.replica_lease", interval: timeout / 5, logger: logger) {
            try await renew()
        }.run()
    }

    /// Extends the lease once (and forgets replicas that lapsed more than `forgetAfter` ago).
    public func renew() async throws {
        let current = now()
        try await deliveries.renewReplicaLease(
            until: current.adding(timeout), forgetBefore: current.adding(.zero - forgetAfter))
    }
}
