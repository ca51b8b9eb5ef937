import Foundation
import Logging
import ServiceCore

/// The direct channel's one periodic sweep for the whole service (not one per stream):
/// - wakes the open streams whose device has a queued job, so a wake-up lost on its way (e.g. between PostgreSQL
///   replicas while the listening connection reconnected) costs one sweep interval, never a delivery: one read per
///   batch of connected devices;
/// - ends the streams opened in sign-in sessions auth reports revoked (logout, refresh-token reuse): one call to
///   `auth.revokedSessions`, made only while some stream is open.
struct DirectSweep: Sendable {
    /// Connected devices per query.
    static let batchSize = 500

    let hub: DirectHub
    let deliveries: any DeliveryRepository
    /// Where revoked sessions come from; `nil` leaves streams to end at their token's expiry.
    let revocations: RevokedSessionsFeed?
    let now: @Sendable () -> Date
    let logger: Logger

    /// One pass; returns how many streams were woken.
    @discardableResult
    func run() async throws -> Int {
        let woken = try await wakeStreamsWithQueuedJobs()
        try await closeRevokedSessions()
        return woken
    }

    private func wakeStreamsWithQueuedJobs() async throws -> Int {
        let connected = await hub.connectedDeviceIDs
        var woken = 0
        for start in stride(from: 0, to: connected.count, by: Self.batchSize) {
            let batch = Array(connected[start..<min(start + Self.batchSize, connected.count)])
            let pending = try await deliveries.devicesWithQueuedJobs(among: batch, now: now())
            if !pending.isEmpty { woken += await hub.wake(deviceIDs: pending) }
        }
        if woken > 0 { logger.debug("direct.sweep.woke", metadata: ["direct.streams": "\(woken)"]) }
        return woken
    }

    private func closeRevokedSessions() async throws {
        guard let revocations, await hub.hasSessionStreams else { return }
        let revoked = try await revocations.refresh()
        for (sessionID, count) in await hub.close(sessionIDs: revoked) {
            logger.security(
                SecurityEvent("direct.streams.session_revoked"),
                metadata: [LogMetadataKey.sessionID: "\(sessionID)", "direct.streams": "\(count)"])
        }
    }
}
