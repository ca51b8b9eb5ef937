import Foundation
import Logging
import ServiceCore
import SharedModels
import Tracing

/// The `push.*` logic: store the payload, record one delivery job per device, wake the channels. Knows nothing of HTTP.
public struct PushSender: Sendable {
    /// Bounds on what `push.send` accepts.
    public struct Limits: Sendable, Hashable {
        /// Largest payload, in UTF-8 bytes (checked before the store is called).
        public var maxPayloadBytes: Int
        /// Longest lifetime, in seconds (the store's bound).
        public var maxTTLSeconds: Int
        /// How long an idempotency reservation may stay pending before another call may take it over.
        public var idempotencyTimeout: Duration
        /// How long a send is kept after its notification expired (for `push.status` and its idempotency key).
        public var retention: Duration
        /// How long an idempotency key is kept after it was reserved (`SECUREPUSH_RETAIN_IDEMPOTENCY_KEYS`); `nil`:
        /// a finished send's key as long as its record, an unfinished one ``retention``.
        public var idempotencyRetention: Duration?
        /// The store's lifetime for a send without `ttlSeconds` (`SECUREPUSH_DEFAULT_TTL`).
        public var defaultTTLSeconds: Int
        /// Furthest ahead a `sendAt` may be (`SECUREPUSH_MAX_SCHEDULE`).
        public var maxScheduleSeconds: Int
        /// How long one replica holds the due scheduled sends it claimed before another may take them over.
        public var scheduleLease: Duration

        public init(
            maxPayloadBytes: Int = 65_536, maxTTLSeconds: Int = 2_592_000,
            idempotencyTimeout: Duration = .seconds(120), retention: Duration = .seconds(86_400),
            defaultTTLSeconds: Int = 604_800, maxScheduleSeconds: Int = 604_800, scheduleLease: Duration = .seconds(60),
            idempotencyRetention: Duration? = nil
        ) {
            self.idempotencyRetention = idempotencyRetention
            self.maxScheduleSeconds = maxScheduleSeconds
            self.scheduleLease = scheduleLease
            self.defaultTTLSeconds = defaultTTLSeconds
            self.maxPayloadBytes = maxPayloadBytes
            self.maxTTLSeconds = maxTTLSeconds
            self.idempotencyTimeout = idempotencyTimeout
            self.retention = retention
        }
    }

    /// Longest recipient id accepted, in UTF-8 bytes: the store's bound, so the store never refuses what we accept.
    public static let maxRecipientLength = TextLimit.recipientID.bytes.upperBound
    /// Longest idempotency key accepted, in UTF-8 bytes.
    public static let maxIdempotencyKeyLength = TextLimit.idempotencyKey.bytes.upperBound

    let deliveries: any DeliveryRepository
    let devices: any DeviceRepository
    let store: NotificationStoreWriter
    let recipients: RecipientDirectory
    let providers: PushProviderRegistry
    /// Each app's sends in its current minute (`limits.sendsPerMinute`), shared by every replica.
    let sendCounters: any AttemptCounters
    let limits: Limits
    let now: @Sendable () -> Date
    let logger: Logger
    /// Counts what the expiry sweep purges (`securepush_retention_purged_total`).
    var retentionMetrics = RetentionMetrics.disabled
    /// Reads the `push.send` span's trace context, kept with the send for its deliveries; `nil`: not traced.
    let tracer: (any Tracer)?
    /// This replica's name on the scheduled sends it claims (its delivery repository's replica id).
    let scheduleOwner: String

    public init(
        deliveries: any DeliveryRepository,
        devices: any DeviceRepository,
        store: NotificationStoreWriter,
        recipients: RecipientDirectory,
        providers: PushProviderRegistry,
        sendCounters: any AttemptCounters = InMemoryAttemptCounters(),
        limits: Limits,
        now: @escaping @Sendable () -> Date,
        logger: Logger,
        tracer: (any Tracer)? = nil,
        scheduleOwner: String = UUID.random().uuidString.lowercased()
    ) {
        self.scheduleOwner = scheduleOwner
        self.sendCounters = sendCounters
        self.deliveries = deliveries
        self.devices = devices
        self.store = store
        self.recipients = recipients
        self.providers = providers
        self.limits = limits
        self.now = now
        self.logger = logger
        self.tracer = tracer
    }

    /// Sends `params.payload` to `params.recipientId`'s devices on behalf of `clientID`.
    ///
    /// Nothing is recorded unless auth knows the recipient and the store accepted the payload; the same idempotency
    /// key from the same client returns the first result without sending again (with other recipients, payload or
    /// options: `-32602` naming `idempotencyKey`).
    ///
    /// `apps` are the apps the client's token lists (empty: the default app only); `params.appId` (default: the
    /// deployment's default app) must be one of them (`-32003` with `data: {appId}`) and exist (`-32602` naming
    /// `appId`). Only that app's devices of the recipient are targeted, within the app's own payload and TTL bounds
    /// and its `sendsPerMinute` (`-32029` with `retryAfterSeconds`; a repeated idempotency key is not counted again).
    public func send(clientID: String, apps: [String] = [], params: Push.Send.Params) async throws -> Push.Send.Result {
        let options = SendOptions(params)
        let app = try await admit(options, clientID: clientID, apps: apps)
        if let reason = TextLimit.recipientID.violation(in: params.recipientId) {
            throw DispatchError.invalidField("recipientId", reason)
        }
        // No payload for nobody: a recipient auth does not know (or auth down) stops the send before anything is kept.
        try await recipients.requireKnown(params.recipientId)
        var claim: IdempotencyClaim?
        switch try await reserve(options, recipients: [params.recipientId], many: false, clientID: clientID) {
        case .completed(let first): return first
        case .reserved(let reserved): claim = reserved
        case nil: break
        case .completedMany, .inProgress, .reusedWithOtherParameters: throw SendOptions.keyReused
        }
        try await count(1, app: app, clientID: clientID, releasing: claim)
        let stored: Store.Put.Result
        let targets: Set<String>?
        let dueAt = options.dueAt(now: now())
        do {
            // A scheduled send's devices are resolved when it is due.
            var plan = SealingPlan.unresolved
            if dueAt == nil {
                let active = try await devices.devices(ownerID: params.recipientId).filter {
                    $0.isActive && $0.appID == app.id
                }
                plan = Self.sealing(active, sealedOnly: options.sealedOnly == true)
            }
            targets = plan.targets
            stored = try await store.put(
                storeItem(options, recipientID: params.recipientId, plan, app, clientID, sendAt: dueAt))
        } catch {
            logger.warning(
                "push.send.store_failed", metadata: [LogMetadataKey.clientID: "\(clientID)", "error": "\(error)"])
            await release(claim)
            throw error
        }
        let recorded: RecordedSend
        do {
            recorded = try await deliveries.recordSend(
                sendRecord(
                    options, recipientID: params.recipientId, stored: stored, targets: targets, app, clientID,
                    sendAt: Self.sendAt(dueAt, stored: stored, now: now())),
                claim: claim)
        } catch let error as DispatchError where error == .sendInProgress {
            throw error
        } catch {
            await release(claim)
            throw error
        }
        await providers.jobsQueued(recorded.jobs)
        logger.debug(
            "push.send.recorded",
            metadata: [
                LogMetadataKey.notificationID: "\(stored.notificationId)", "push.deliveries": "\(recorded.jobs.count)",
            ]
        )
        return recorded.result
    }

    /// The app a send goes to, once the client may use it and the options fit its bounds.
    func admit(_ options: SendOptions, clientID: String, apps: [String]) async throws -> ServedApp {
        let appID = options.appId ?? providers.catalog.defaultAppID
        guard AppID.isValid(appID) else { throw DispatchError.invalidField("appId", AppID.requirement) }
        guard (apps.isEmpty ? [providers.catalog.defaultAppID] : apps).contains(appID) else {
            throw DispatchError.appNotAllowed(appID)
        }
        let app = try await providers.app(appID)
        try options.validate(limits: limits, app: app.limits, now: now())
        return app
    }

    /// Reserves the call's idempotency key; `nil` when it has none. Throws what a caller must hear: `-32602` naming
    /// `idempotencyKey` when the key was first used otherwise, ``DispatchError/sendInProgress`` while another call
    /// holds it.
    func reserve(_ options: SendOptions, recipients: [String], many: Bool, clientID: String) async throws
        -> IdempotencyReservation?
    {
        guard let key = options.idempotencyKey else { return nil }
        let start = now()
        let reservation = try await deliveries.reserve(
            clientID: clientID, key: key, fingerprint: options.fingerprint(recipients: recipients, many: many),
            now: start, staleBefore: start.adding(.zero - limits.idempotencyTimeout))
        switch reservation {
        case .inProgress: throw DispatchError.sendInProgress
        case .reusedWithOtherParameters: throw SendOptions.keyReused
        case .completed, .completedMany, .reserved: return reservation
        }
    }

    /// Counts `recipients` sends against the app's `sendsPerMinute` (a send to many counts each recipient); refused:
    /// `-32029` with `retryAfterSeconds`, and the idempotency claim is given up.
    func count(_ recipients: Int, app: ServedApp, clientID: String, releasing claim: IdempotencyClaim?) async throws {
        let appID = app.id
        guard let perMinute = app.limits.sendsPerMinute else { return }
        // More recipients than a whole minute allows can never pass: not a quota to wait for.
        guard recipients <= perMinute else {
            await release(claim)
            throw DispatchError.invalidField(
                "recipientIds",
                "names \(recipients) known recipients, more than app '\(appID)' may send to in a minute "
                    + "(sendsPerMinute \(perMinute)): split the call")
        }
        let counted: AttemptCount
        do {
            counted = try await sendCounters.reserve(appID, cost: recipients, limit: perMinute, window: 60, at: now())
        } catch {
            await release(claim)
            throw error
        }
        guard case .refused(let retryAfter) = counted else { return }
        await release(claim)
        logger.security(
            SecurityEvent("push.send.app_quota_exceeded"),
            metadata: [
                LogMetadataKey.clientID: "\(clientID)", "app.id": "\(appID)", "quota.limit": "\(perMinute)",
                "push.recipients": "\(recipients)",
            ])
        throw DispatchError.quotaExceeded(
            .sendsPerMinute, limit: perMinute, appID: appID, retryAfterSeconds: retryAfter)
    }

    /// What the store is asked to keep for one recipient. With an idempotency key, the store's own key for the
    /// recipient makes a retried call find the notification the first one stored.
    func storeItem(
        _ options: SendOptions, recipientID: String, _ plan: SealingPlan, _ app: ServedApp, _ clientID: String,
        sendAt: Date?
    ) -> Store.Put.Params {
        Store.Put.Params(
            recipientId: recipientID, payload: options.payload,
            ttlSeconds: options.ttlSeconds ?? app.limits.maxTTLSeconds.map { min($0, limits.defaultTTLSeconds) },
            recipientKeys: plan.keys, sealedOnly: plan.sealedOnly || options.sealedOnly == true ? true : nil,
            readOnce: options.readOnce == true ? true : nil,
            idempotencyKey: options.idempotencyKey.map {
                SendOptions.storeKey(clientID: clientID, key: $0, recipientID: recipientID)
            }, sendAt: sendAt)
    }

    /// When the recorded send is due: the call's `sendAt`, or now for a notification the store still holds although
    /// the call is not scheduled (a retry after `sendAt` passed found the first call's held copy: the scheduler
    /// publishes it at once, resolving the devices).
    static func sendAt(_ dueAt: Date?, stored: Store.Put.Result, now: Date) -> Date? {
        dueAt ?? (stored.held == true ? now : nil)
    }

    /// The send as push-dispatch records it once the store has the payload.
    func sendRecord(
        _ options: SendOptions, recipientID: String, stored: Store.Put.Result, targets: Set<String>?,
        _ app: ServedApp, _ clientID: String, sendAt: Date?
    ) -> SendRecord {
        var record = SendRecord(
            notificationID: stored.notificationId, clientID: clientID, recipientID: recipientID,
            expiresAt: stored.expiresAt, createdAt: now(), deviceIDs: targets, traceParent: currentTraceParent(),
            appID: app.id, priority: options.priority, collapseID: options.collapseId, sendAt: sendAt)
        record.sealedOnly = options.sealedOnly == true
        return record
    }

    /// What the store is asked to keep, and which devices are targeted.
    struct SealingPlan {
        /// The keys of the recipient's sealed devices; `nil` when there are none.
        var keys: [Store.RecipientKey]?
        /// Whether no server-readable copy is kept: `sealedOnly` asked, or every targeted device is sealed.
        var sealedOnly: Bool
        /// The devices targeted; `nil` (every active device) when none is sealed.
        var targets: Set<String>?

        /// A scheduled send's, before it is due: nothing sealed, nobody resolved.
        static let unresolved = SealingPlan(keys: nil, sealedOnly: false, targets: nil)
    }

    /// Of a recipient's active devices in the app, sealed ones get their own copy; `sealedOnly` targets only them.
    static func sealing(_ active: [DeviceRecord], sealedOnly: Bool) -> SealingPlan {
        let sealed = active.filter { $0.publicKey != nil }
        guard !sealed.isEmpty || sealedOnly else { return SealingPlan(keys: nil, sealedOnly: false, targets: nil) }
        let targeted = sealedOnly ? sealed : active
        return SealingPlan(
            keys: sealed.map { Store.RecipientKey(deviceId: $0.id, publicKey: $0.publicKey!) },
            sealedOnly: sealedOnly || sealed.count == targeted.count,
            targets: Set(targeted.map(\.id)))
    }

    /// Where each delivery of a notification stands, with each device's first fetch (from the store's receipts);
    /// `-32004` unless `clientID` sent it.
    public func status(clientID: String, notificationID: String) async throws -> Push.Status.Result {
        guard
            var states = try await deliveries.deliveries(
                notificationID: notificationID, clientID: clientID, now: now())
        else { throw DispatchError.notificationNotFound }
        do {
            let fetched = Dictionary(
                try await store.receipts(notificationID: notificationID).map { ($0.deviceId, $0.fetchedAt) },
                uniquingKeysWith: min)
            for index in states.indices { states[index].fetchedAt = fetched[states[index].deviceId] }
        } catch {
            // Delivery states are ours and still true; only the receipts are missing while the store is away.
            logger.warning("push.status.receipts_failed", metadata: ["error": "\(error)"])
        }
        let traceID = try await deliveries.traceParent(notificationID: notificationID)?.traceID
        let schedule = try await deliveries.sendState(notificationID: notificationID, clientID: clientID)
        return Push.Status.Result(
            notificationId: notificationID, deliveries: states, traceId: traceID, state: schedule?.state ?? .sent,
            sendAt: schedule?.sendAt)
    }

    /// Marks deliveries past expiry `expired` and forgets sends whose retention ended (run periodically).
    public func expireAndPurge() async throws {
        let current = now()
        let expired = try await deliveries.expireDue(now: current)
        let purged = try await deliveries.purge(
            before: current.adding(.zero - limits.retention),
            keysBefore: limits.idempotencyRetention.map { current.adding(.zero - $0) })
        retentionMetrics.purged("sends", purged.sends)
        retentionMetrics.purged("deliveries", purged.deliveries)
        retentionMetrics.purged("idempotencyKeys", purged.idempotencyKeys)
        _ = try await sendCounters.purge(expiredBefore: current)
        if expired > 0 || purged.sends > 0 {
            logger.debug(
                "push.expiry.swept", metadata: ["push.expired": "\(expired)", "push.purged": "\(purged.sends)"])
        }
    }

    /// The trace context of the span this call runs in (the `push.send` server span), when tracing is on.
    func currentTraceParent() -> TraceParent? {
        guard let tracer, let context = ServiceContext.current else { return nil }
        return tracer.traceParent(of: context)
    }

    /// Gives the reservation up, even when the call was cancelled (its client reset the request): a retry with the
    /// same key must not wait for the reservation to go stale.
    func release(_ claim: IdempotencyClaim?) async {
        guard let claim else { return }
        do {
            try await uncancelled { [deliveries] in try await deliveries.release(claim) }
        } catch {
            logger.error("push.send.release_failed", metadata: ["error": "\(error)"])
        }
    }
}
