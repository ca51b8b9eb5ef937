import Foundation
import ServiceCore
import SharedModels

extension PushSender {
    /// Largest `store.putMany` request push-dispatch builds, in estimated bytes: half the default request limit, so a
    /// store with the default `SECUREPUSH_MAX_BODY_BYTES` takes every call (an item larger than this goes alone).
    static let putManyBudgetBytes = 512 << 10

    /// Sends `params.payload` to each of `params.recipientIds` (`push.send` with `recipientIds`), as ``send(clientID:apps:params:)``
    /// sends to one: one notification per recipient auth knows, stored with `store.putMany` (one transaction per
    /// call of at most ``Store/PutMany/maxItems``) and recorded with its deliveries, each batch pushed as soon as it
    /// is recorded. Unknown recipients are listed and get nothing.
    ///
    /// The idempotency key covers the whole call: each recipient's notification carries a store key derived from it,
    /// so a retry after a crash halfway finds what the first call stored and recorded, and ends with exactly one
    /// notification per recipient. The app's `sendsPerMinute` counts each known recipient.
    public func sendToMany(clientID: String, apps: [String] = [], params: Push.SendToMany.Params) async throws
        -> Push.SendToMany.Result
    {
        let options = SendOptions(params)
        let app = try await admit(options, clientID: clientID, apps: apps)
        let recipientIDs = try Self.distinctRecipients(params.recipientIds)
        let known = try await recipients.known(recipientIDs)
        let knownIDs = recipientIDs.filter(known.contains)
        let unknownIDs = recipientIDs.filter { !known.contains($0) }
        // Nothing is stored for nobody: no key is reserved either.
        guard !knownIDs.isEmpty else {
            return Push.SendToMany.Result(notifications: [], unknownRecipientIds: unknownIDs)
        }
        var claim: IdempotencyClaim?
        switch try await reserve(options, recipients: knownIDs + unknownIDs, many: true, clientID: clientID) {
        case .completedMany(let first): return first
        case .reserved(let reserved): claim = reserved
        case nil: break
        case .completed, .inProgress, .reusedWithOtherParameters: throw SendOptions.keyReused
        }
        try await count(knownIDs.count, app: app, clientID: clientID, releasing: claim)
        var notifications: [Push.RecipientNotification] = []
        notifications.reserveCapacity(knownIDs.count)
        let dueAt = options.dueAt(now: now())
        do {
            // A scheduled send's devices are resolved when it is due.
            let active =
                dueAt != nil
                ? [:]
                : Dictionary(
                    grouping: try await devices.activeDevices(ownerIDs: knownIDs, appID: app.id), by: \.ownerID)
            for batch in batches(of: knownIDs, options: options, active: active) {
                let plans = batch.map {
                    dueAt != nil
                        ? SealingPlan.unresolved
                        : Self.sealing(active[$0] ?? [], sealedOnly: options.sealedOnly == true)
                }
                let stored = try await store.putMany(
                    zip(batch, plans).map { storeItem(options, recipientID: $0, $1, app, clientID, sendAt: dueAt) })
                let records = zip(batch, zip(plans, stored)).map { recipientID, planned in
                    sendRecord(
                        options, recipientID: recipientID, stored: planned.1, targets: planned.0.targets, app, clientID,
                        sendAt: Self.sendAt(dueAt, stored: planned.1, now: now()))
                }
                await providers.jobsQueued(try await deliveries.recordSends(records))
                notifications += zip(batch, stored).map {
                    Push.RecipientNotification(recipientId: $0, notificationId: $1.notificationId)
                }
            }
        } catch {
            logger.warning(
                "push.send.many_failed",
                metadata: [
                    LogMetadataKey.clientID: "\(clientID)", "error": "\(error)",
                    "push.recorded": "\(notifications.count)", "push.recipients": "\(knownIDs.count)",
                ])
            // What was recorded stays (and is delivered); a retry with the same key completes the rest.
            await release(claim)
            throw error
        }
        let result = Push.SendToMany.Result(notifications: notifications, unknownRecipientIds: unknownIDs)
        if let claim, let first = notifications.first {
            // Lost to a takeover: the other call records the same notifications (the store's keys), so this result
            // stands as well.
            _ = try await deliveries.complete(claim, firstNotificationID: first.notificationId, result: result)
        }
        logger.debug(
            "push.send.many_recorded",
            metadata: ["push.recipients": "\(knownIDs.count)", "push.unknown": "\(unknownIDs.count)"])
        return result
    }

    /// The recipients, each once in the order first named: 1 to ``Push/SendToMany/maxRecipients``, each a valid id
    /// (`-32602` naming `recipientIds`, or the entry at fault).
    static func distinctRecipients(_ ids: [String]) throws(DispatchError) -> [String] {
        var seen = Set<String>()
        var distinct: [String] = []
        for (index, id) in ids.enumerated() where seen.insert(id).inserted {
            if let reason = TextLimit.recipientID.violation(in: id) {
                throw .invalidField("recipientIds[\(index)]", reason)
            }
            distinct.append(id)
            guard distinct.count <= Push.SendToMany.maxRecipients else { break }
        }
        guard (1...Push.SendToMany.maxRecipients).contains(distinct.count) else {
            throw .invalidField(
                "recipientIds", "must name 1–\(Push.SendToMany.maxRecipients) distinct user ids")
        }
        return distinct
    }

    /// The recipients split into `store.putMany` calls: at most ``Store/PutMany/maxItems`` each, and about
    /// ``putManyBudgetBytes`` of JSON (the payload's encoded size, plus each sealed device's copy).
    func batches(of recipientIDs: [String], options: SendOptions, active: [String: [DeviceRecord]]) -> [[String]] {
        // The payload as JSON once (escapes can make it up to six times its UTF-8 size), then a bound per item.
        let payloadBytes = (try? JSONEncoder().encode(options.payload).count) ?? options.payload.utf8.count * 6
        var batches: [[String]] = []
        var current: [String] = []
        var bytes = 0
        for recipientID in recipientIDs {
            let sealed = (active[recipientID] ?? []).filter { $0.publicKey != nil }.count
            let itemBytes = payloadBytes + 512 + sealed * 256
            if !current.isEmpty, current.count == Store.PutMany.maxItems || bytes + itemBytes > Self.putManyBudgetBytes
            {
                batches.append(current)
                current = []
                bytes = 0
            }
            current.append(recipientID)
            bytes += itemBytes
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }
}
