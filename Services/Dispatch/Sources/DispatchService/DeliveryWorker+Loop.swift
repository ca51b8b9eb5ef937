import Foundation
import Logging
import ServiceCore
import SharedModels
import Tracing

extension DeliveryWorker {
    /// Claims and starts jobs while there is room, sleeps until something can change, repeats until shutdown.
    func deliver(in group: inout TaskGroup<Event>, owner: String) async {
        let limit = concurrency
        // Claims wait for a quarter of the slots to be free, so a backlog is claimed in batches, not job by job.
        let batch = max(1, limit / 4)
        let renewalInterval = configuration.leaseTimeout / 3
        var inFlight = 0
        var mayHaveDue = true  // jobs left over from before a restart are picked up at once
        var lastClaim = now()
        var renewAt: Date?
        var claimFailedAt: Date?
        var plannedWake: Date?  // when the running wait ends by itself; `nil` while no wait is running

        while !doorbell.isClosed && !Task.isCancelled {
            let current = now()
            if inFlight > 0, let due = renewAt, current >= due {
                await renewLeases(owner: owner, current: current)
                renewAt = current.adding(renewalInterval)
            }
            if mayHaveDue, limit - inFlight >= batch {
                let wanted = limit - inFlight
                do {
                    let jobs = try await deliveries.claimDue(
                        platform: platform, owner: owner, now: current,
                        leaseUntil: current.adding(configuration.leaseTimeout), limit: wanted)
                    if inFlight == 0 { renewAt = current.adding(renewalInterval) }
                    for job in jobs {
                        group.addTask { await attempt(job, owner: owner) }
                    }
                    inFlight += jobs.count
                    mayHaveDue = jobs.count == wanted
                    lastClaim = current
                    claimFailedAt = nil
                } catch {
                    logger.warning("delivery.claim_failed", metadata: ["error": "\(error)"])
                    mayHaveDue = false
                    claimFailedAt = current
                }
            }
            if plannedWake == nil {
                var wake = current.adding(configuration.idleInterval)
                if inFlight > 0, let renewAt { wake = min(wake, renewAt) }
                if let claimFailedAt { wake = min(wake, claimFailedAt.adding(.seconds(1))) }
                // Also while short of room: once a retry is due, the next finished attempt makes room for it.
                if !mayHaveDue, claimFailedAt == nil, let due = await nextDueDate(after: lastClaim) {
                    wake = min(wake, due)
                }
                let delay = max(.milliseconds(1), Duration.seconds(wake.timeIntervalSince(current)))
                group.addTask { [doorbell] in
                    _ = await doorbell.wait(upTo: delay)
                    return .woken
                }
                plannedWake = wake
            }
            switch await group.next() {
            case .woken:
                plannedWake = nil
                mayHaveDue = true
            case .attempted(let retryAt):
                inFlight -= 1
                // The running wait was planned before this retry existed: re-plan if it is due earlier.
                if let retryAt, let plannedWake, retryAt < plannedWake { doorbell.wake() }
            case nil:
                return
            }
        }
    }

    /// Hands `job`, of an app this replica does not serve, back uncounted: claimable again after
    /// ``unservedAppRetry``.
    private func handBack(_ job: DeliveryJob, owner: String) async -> Event {
        let retryAt = now().adding(Self.unservedAppRetry)
        logger.debug(
            "delivery.app_not_served",
            metadata: [LogMetadataKey.notificationID: "\(job.notificationID)", "app.id": "\(job.appID)"])
        do {
            try await uncancelled { try await deliveries.releaseLease(of: job, owner: owner, claimableAfter: retryAt) }
        } catch {
            logger.warning("delivery.release_failed", metadata: ["error": "\(error)"])
        }
        return .attempted(retryAt: retryAt)
    }

    /// One attempt at `job`, recorded (or, when abandoned at shutdown, handed back) before it returns.
    func attempt(_ job: DeliveryJob, owner: String) async -> Event {
        let span = tracing.start("push.deliver", job: job, platform: platform, kind: .client)
        let outcome: DeliveryOutcome
        if let provider = await catalog.provider(appID: job.appID, platform: platform) {
            outcome = await tracing.run(in: span) { await provider.deliver(job, responses: responses) }
        } else if job.appID.isEmpty {
            // The device is gone (its row, and with it its app): nothing can push the job.
            outcome = .failed(reason: "device unregistered")
        } else {
            // Not served here now: an app created a moment ago on another replica, one whose credentials this
            // replica cannot open, or one without credentials for this platform. Deleting an app fails its jobs in
            // the same transaction, so this is not final, and nothing was attempted: the job is handed back without
            // counting an attempt, for any replica (this one once its catalog caught up) to take a little later.
            span?.end()
            return await handBack(job, owner: owner)
        }
        if let span {
            span.attributes["securepush.delivery.result"] = outcome.metricResult
            if case .sent = outcome {} else { span.setStatus(SpanStatus(code: .error)) }
            span.end()
        }
        if Task.isCancelled, case .retry = outcome {
            // Cancelled mid-attempt (shutdown ran out of time): not the device's fault, so no attempt is counted and
            // the job is free for the next start at once.
            do {
                try await uncancelled {
                    try await deliveries.releaseLease(of: job, owner: owner, claimableAfter: nil)
                }
            } catch {
                logger.warning("delivery.release_failed", metadata: ["error": "\(error)"])
            }
            return .attempted(retryAt: nil)
        }
        attemptCounts(job.appID).increment(outcome.metricResult)
        let attempts = job.attempts + 1
        let recordedAt = now()
        let resolved = configuration.retry.resolve(
            outcome, attempts: attempts, expiresAt: job.expiresAt, now: recordedAt)
        do {
            let status = try await uncancelled {
                try await deliveries.record(resolved, for: job, leaseOwner: owner, now: recordedAt)
            }
            logger.debug(
                "delivery.attempted",
                metadata: [
                    LogMetadataKey.notificationID: "\(job.notificationID)", LogMetadataKey.deviceID: "\(job.deviceID)",
                    "delivery.attempts": "\(attempts)", "delivery.status": "\(status.map(\.rawValue) ?? "superseded")",
                ])
            if let status, status != .retrying { deliveryCounts(job.appID).increment(status.rawValue) }
            if status == .sent { deliveryLatency.recordLatency(since: job.sentAt, until: recordedAt) }
            if status == .deactivated, let reason = resolved.deactivationReason {
                deactivationCounts(job.appID).increment(reason)
            }
            if status == .retrying, case .retry(let after, _) = resolved {
                return .attempted(retryAt: recordedAt.adding(after))
            }
        } catch {
            // The lease lapses and the job is attempted again: at least once, never lost.
            logger.error(
                "delivery.record_failed",
                metadata: [LogMetadataKey.notificationID: "\(job.notificationID)", "error": "\(error)"])
        }
        return .attempted(retryAt: nil)
    }

    private func renewLeases(owner: String, current: Date) async {
        do {
            _ = try await deliveries.renewLeases(owner: owner, until: current.adding(configuration.leaseTimeout))
        } catch {
            logger.warning("delivery.renew_failed", metadata: ["error": "\(error)"])
        }
    }

    private func nextDueDate(after date: Date) async -> Date? {
        do {
            return try await deliveries.nextDueDate(platform: platform, after: date)
        } catch {
            logger.warning("delivery.next_due_failed", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
