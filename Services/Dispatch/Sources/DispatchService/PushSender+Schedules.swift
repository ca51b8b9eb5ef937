import Foundation
import ServiceCore
import SharedModels

extension PushSender {
    /// Most due scheduled sends one round claims (one `store.publish` call).
    static let schedulesPerRound = Store.Publish.maxItems

    /// Sends the scheduled sends that came due (run every `scheduleInterval` on every replica): claims them under a
    /// lease (each claimed by one replica), resolves each recipient's active devices of its app as a send now would,
    /// has the store publish the held notifications sealed to those devices, and records the jobs. When the store
    /// cannot publish, the claims are handed back and tried again next round. Returns how many were claimed.
    public func sendDueSchedules() async throws -> Int {
        let current = now()
        let claimed = try await deliveries.claimDueSchedules(
            owner: scheduleOwner, now: current, leaseUntil: current.adding(limits.scheduleLease),
            limit: Self.schedulesPerRound)
        guard !claimed.isEmpty else { return 0 }
        var due: [SendRecord] = []
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
                    due.append(resolved)
                    items.append(
                        Store.Publish.Item(
                            notificationId: send.notificationID, recipientKeys: plan.keys,
                            sealedOnly: send.sealedOnly ? true : nil))
                }
            }
            let published = try await store.publish(items)
            // Gone from the store (expired meanwhile): recorded sent, targeting nobody.
            let missing = Set(published.missingNotificationIds)
            for index in due.indices where missing.contains(due[index].notificationID) { due[index].deviceIDs = [] }
        } catch {
            try? await uncancelled { [deliveries, scheduleOwner] in
                try await deliveries.releaseSchedules(claimed.map(\.notificationID), owner: scheduleOwner)
            }
            logger.warning(
                "push.schedule.publish_failed", metadata: ["error": "\(error)", "push.due": "\(claimed.count)"])
            throw error
        }
        let jobs = try await deliveries.recordDueSchedules(due, owner: scheduleOwner, now: now())
        await providers.jobsQueued(jobs)
        logger.debug(
            "push.schedule.sent", metadata: ["push.due": "\(claimed.count)", "push.deliveries": "\(jobs.count)"])
        return claimed.count
    }

    /// Withdraws `clientID`'s scheduled send before it is due (`push.cancel`): it is never pushed, and the store's
    /// held copy is deleted (when the store cannot be reached, it expires there unseen). A repeated cancel returns;
    /// a send already due is `-32009` (`already sent`); another client's or a missing one `-32004`.
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
