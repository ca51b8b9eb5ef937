import Foundation
import ServiceCore
import SharedModels

extension PushSender {
    /// Most due scheduled sends one round claims.
    static let schedulesPerRound = Store.Publish.maxItems
    /// How long a scheduled send the store would not publish waits before any replica tries it again (the others
    /// go ahead meanwhile; once it expired the store reports it missing and it ends sent to nobody).
    static let publishRetryDelay: Duration = .seconds(10)

    /// Sends the scheduled sends that came due (run every `scheduleInterval` on every replica): claims them under a
    /// lease (each claimed by one replica), resolves each recipient's active devices of its app as a send now would,
    /// has the store publish the held notifications sealed to those devices (in calls of about
    /// ``putManyBudgetBytes``), and records the jobs. A call the store refuses is tried item by item, so one bad send
    /// never holds the others back; what still fails waits ``publishRetryDelay``. Returns how many were claimed.
    public func sendDueSchedules() async throws -> Int {
        let current = now()
        let claimed = try await deliveries.claimDueSchedules(
            owner: scheduleOwner, now: current, leaseUntil: current.adding(limits.scheduleLease),
            limit: Self.schedulesPerRound)
        guard !claimed.isEmpty else { return 0 }
        var due: [String: SendRecord] = [:]
        var items: [Store.Publish.Item] = []
        do {
            for (appID, sends) in Dictionary(grouping: claimed, by: \.appID) {
                let active = Dictionary(
                    grouping: try await devices.activeDevices(ownerIDs: sends.map(\.recipientID), appID: appID),
                    by: \.ownerID)
                for send in sends {
                    let plan = Self.sealing(active[send.recipientID] ?? [], sealedOnly: send.sealedOnly)
                    var resolved = send
                    resolved.deviceIDs = plan.targets
                    due[send.notificationID] = resolved
                    // As a send made now: no readable copy once every targeted device is sealed.
                    items.append(
                        Store.Publish.Item(
                            notificationId: send.notificationID, recipientKeys: plan.keys,
                            sealedOnly: plan.sealedOnly || send.sealedOnly ? true : nil))
                }
            }
        } catch {
            try? await handBack(claimed.map(\.notificationID), after: .zero)
            throw error
        }
        var failed: [String] = []
        for batch in Self.publishBatches(items) {
            for (item, outcome) in await publish(batch) {
                switch outcome {
                case .published: break
                // Gone from the store (expired meanwhile): recorded sent, targeting nobody.
                case .missing: due[item.notificationId]?.deviceIDs = []
                case .failed: failed.append(item.notificationId)
                }
            }
        }
        if !failed.isEmpty {
            for id in failed { due[id] = nil }
            try? await handBack(failed, after: Self.publishRetryDelay)
        }
        let ready = claimed.compactMap { due[$0.notificationID] }
        let jobs = try await deliveries.recordDueSchedules(ready, owner: scheduleOwner, now: now())
        await providers.jobsQueued(jobs)
        logger.debug(
            "push.schedule.sent",
            metadata: [
                "push.due": "\(claimed.count)", "push.deliveries": "\(jobs.count)", "push.failed": "\(failed.count)",
            ])
        return claimed.count
    }

    /// What became of one item of a `store.publish` call.
    enum PublishOutcome {
        case published, missing, failed
    }

    /// Publishes `batch`; when the store refuses the call, each item alone, so that only the items it refuses fail.
    private func publish(_ batch: [Store.Publish.Item]) async -> [(Store.Publish.Item, PublishOutcome)] {
        func outcomes(_ items: [Store.Publish.Item]) async throws -> [(Store.Publish.Item, PublishOutcome)] {
            let missing = Set(try await store.publish(items).missingNotificationIds)
            return items.map { ($0, missing.contains($0.notificationId) ? .missing : .published) }
        }
        do {
            return try await outcomes(batch)
        } catch {
            logger.warning(
                "push.schedule.publish_failed", metadata: ["error": "\(error)", "push.items": "\(batch.count)"])
            guard batch.count > 1 else { return [(batch[0], .failed)] }
        }
        var results: [(Store.Publish.Item, PublishOutcome)] = []
        for item in batch {
            do {
                results += try await outcomes([item])
            } catch {
                results.append((item, .failed))
            }
        }
        return results
    }

    /// The items split into `store.publish` calls of at most ``Store/Publish/maxItems`` and about
    /// ``putManyBudgetBytes`` of JSON (an id and each sealed device's key).
    static func publishBatches(_ items: [Store.Publish.Item]) -> [[Store.Publish.Item]] {
        var batches: [[Store.Publish.Item]] = []
        var current: [Store.Publish.Item] = []
        var bytes = 0
        for item in items {
            let itemBytes = 128 + (item.recipientKeys?.count ?? 0) * 192
            if !current.isEmpty, current.count == Store.Publish.maxItems || bytes + itemBytes > putManyBudgetBytes {
                batches.append(current)
                current = []
                bytes = 0
            }
            current.append(item)
            bytes += itemBytes
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }

    /// Hands claimed sends back, claimable again after `delay`, even when this task was cancelled.
    private func handBack(_ notificationIDs: [String], after delay: Duration) async throws {
        try await uncancelled { [deliveries, scheduleOwner, now] in
            try await deliveries.releaseSchedules(
                notificationIDs, owner: scheduleOwner, claimableAfter: now().adding(delay))
        }
    }

    /// Withdraws `clientID`'s scheduled send before it is due (`push.cancel`): it is never pushed, and the store's
    /// held copy is deleted (when the store cannot be reached then, it stays held, never shown, until it expires).
    /// A repeated cancel returns; a send whose sending started is `-32009` (`already sent`); another client's or a
    /// missing one `-32004`.
    public func cancel(clientID: String, notificationID: String) async throws {
        switch try await deliveries.cancel(notificationID: notificationID, clientID: clientID, now: now()) {
        case .cancelled:
            do {
                _ = try await store.discard([notificationID])
            } catch {
                logger.warning(
                    "push.cancel.discard_failed",
                    metadata: [LogMetadataKey.notificationID: "\(notificationID)", "error": "\(error)"])
            }
        case .alreadyCancelled: return
        case .alreadySent: throw DispatchError.conflict("already sent")
        case .notFound: throw DispatchError.notificationNotFound
        }
    }
}
