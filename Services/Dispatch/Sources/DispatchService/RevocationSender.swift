import CoreMetrics
import Foundation
import Logging
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Sends the outbox's device revocations to the notification store (`store.revokeDevices`) until each is answered:
/// at once when this replica changed a device (``wake()``), otherwise at least every `pollInterval` (other replicas'
/// changes, deactivations by the delivery workers). While the store is unreachable it backs off (1 s doubling to
/// 30 s) and the revocations wait in the database; `securepush_device_revocations_pending` shows how many.
public struct RevocationSender: Service {
    let outbox: DeviceRevocationOutbox
    let store: NotificationStoreWriter
    let doorbell: WakeUpSignal
    let pollInterval: Duration
    let now: @Sendable () -> Date
    let logger: Logger
    let pending: Meter

    /// Most devices sent in one call.
    static let batchSize = 500

    /// - Parameters:
    ///   - outbox: where device changes queued their revocations.
    ///   - store: the store client (push-dispatch's `store:write` token).
    ///   - pollInterval: the longest the outbox goes unread while idle (1 s).
    ///   - now: the clock.
    ///   - logger: failures to reach the store are warnings.
    ///   - metrics: where `securepush_device_revocations_pending` is recorded.
    public init(
        outbox: DeviceRevocationOutbox, store: NotificationStoreWriter, pollInterval: Duration = .seconds(1),
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.outbox = outbox
        self.store = store
        self.doorbell = WakeUpSignal()
        self.pollInterval = pollInterval
        self.now = now
        self.logger = logger
        self.pending = Meter(label: "securepush_device_revocations_pending", factory: metrics)
    }

    /// A device changed on this replica: send without waiting for the next poll.
    public func wake() { doorbell.wake() }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var backoff = Duration.seconds(1)
            while !Task.isCancelled {
                var wait = pollInterval
                do {
                    let full = try await sendAvailable()
                    backoff = .seconds(1)
                    if full { continue }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("dispatch.revocations.send_failed", metadata: ["error": "\(error)"])
                    wait = backoff
                    backoff = min(backoff * 2, .seconds(30))
                }
                await recordPending()
                if await doorbell.wait(upTo: wait) == .closed { return }
            }
        }
    }

    /// Sends one batch, if any waits; `true` when it was full (more may wait). Throws when the store did not answer.
    @discardableResult
    public func sendAvailable() async throws -> Bool {
        guard let batch = try await outbox.claim(limit: Self.batchSize, now: now()) else { return false }
        let result: Store.RevokeDevices.Result
        do {
            result = try await store.revokeDevices(.init(deviceIds: batch.deviceIDs, revocationId: batch.id))
        } catch {
            try? await outbox.release(batch)
            throw error
        }
        try await outbox.remove(batch)
        logger.info(
            "dispatch.revocations.sent",
            metadata: [
                "dispatch.revocation.devices": "\(batch.deviceIDs.count)",
                "dispatch.revocation.sealed_copies_deleted": "\(result.sealedCopiesDeleted)",
            ])
        return batch.deviceIDs.count == Self.batchSize
    }

    private func recordPending() async {
        do {
            pending.set(try await outbox.pendingCount())
        } catch {
            logger.debug("dispatch.revocations.count_failed", metadata: ["error": "\(error)"])
        }
    }
}
