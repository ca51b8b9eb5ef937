import Crypto
import Foundation
import Logging
import SealedPush
import ServiceCore
import SharedModels

/// The notification store's domain logic: validation, lifetimes and ownership. Knows nothing of HTTP or JSON-RPC.
public struct NotificationStore: Sendable {
    /// Limits `store.put` enforces.
    public struct Limits: Sendable, Hashable {
        public var maxPayloadBytes: Int
        public var defaultTTLSeconds: Int
        public var maxTTLSeconds: Int

        public init(maxPayloadBytes: Int = 65_536, defaultTTLSeconds: Int = 604_800, maxTTLSeconds: Int = 2_592_000) {
            self.maxPayloadBytes = maxPayloadBytes
            self.defaultTTLSeconds = defaultTTLSeconds
            self.maxTTLSeconds = maxTTLSeconds
        }
    }

    /// Longest recipient id accepted, in UTF-8 bytes (push-dispatch checks the same `TextLimit.recipientID`).
    public static let maxRecipientIDLength = TextLimit.recipientID.bytes.upperBound
    /// Page sizes `list` accepts.
    public static let listLimits = 1...200
    /// Page size when none is asked for.
    public static let defaultListLimit = 50

    /// Most sealed devices one `store.put` may name.
    public static let maxRecipientKeys = 100

    private let repository: any NotificationRepository
    /// ``repository`` when it can answer a fetch without suspending (SQLite); cast once, not per fetch.
    private let immediateRepository: (any ImmediateNotificationFetching)?
    private let replayCache: any ProofReplayCache
    private let limits: Limits
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let metrics: StoreMetrics
    /// When the replay cache forgets everything at a restart (in memory): proofs made in an earlier second than this
    /// are refused, since the process before might have accepted them.
    private let proofsMadeBefore: Date?
    /// Where fetches with a device proof (and their refusals) and revocations are recorded; ``StoreMethods`` records
    /// the rest.
    let audit: AuditTrail?
    /// How long receipts outlive their notification (`SECUREPUSH_RETAIN_RECEIPTS`).
    var receiptRetention: Duration = .seconds(SettingCatalog.retainReceipts.defaultValue)
    /// Counts what the purge deletes by retention (`securepush_retention_purged_total`).
    var retentionMetrics = RetentionMetrics.disabled

    /// - Parameters:
    ///   - repository: where notifications live.
    ///   - limits: payload and lifetime bounds.
    ///   - now: the clock (injected so expiry can be tested without waiting).
    ///   - logger: for purge results (debug level).
    ///   - metrics: counts notifications stored and purged.
    ///   - replayCache: remembers accepted device proofs (in memory by default; shared by replicas on PostgreSQL).
    ///   - audit: the audit trail.
    public init(
        repository: any NotificationRepository,
        replayCache: any ProofReplayCache = InMemoryProofReplayCache(),
        limits: Limits = Limits(),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger,
        metrics: StoreMetrics = .disabled,
        audit: AuditTrail? = nil
    ) {
        self.audit = audit
        self.repository = repository
        immediateRepository = repository as? any ImmediateNotificationFetching
        self.replayCache = replayCache
        self.limits = limits
        self.now = now
        self.logger = logger
        self.metrics = metrics
        proofsMadeBefore = replayCache.remembersAcrossRestarts ? nil : now()
    }

    /// Stores `payload` for `recipientID` and returns the new notification (its id is a fresh UUIDv4).
    ///
    /// Each of `recipientKeys` gets its own HPKE-sealed copy; with `sealedOnly` no server-readable copy is kept at all
    /// (the plaintext goes no further than this function). With `readOnce` the first successful fetch erases every copy.
    /// With an `idempotencyKey`, a notification `writer` stored with the same key before is returned instead. With a
    /// `sendAt` it is held from its recipient until ``publish(_:)`` shows it.
    public func put(
        recipientID: String, payload: String, ttlSeconds: Int?, recipientKeys: [Store.RecipientKey] = [],
        sealedOnly: Bool = false, readOnce: Bool = false, idempotencyKey: String? = nil, writer: String = "",
        sendAt: Date? = nil
    ) async throws -> NotificationMetadata {
        let item = Store.Put.Params(
            recipientId: recipientID, payload: payload, ttlSeconds: ttlSeconds, recipientKeys: recipientKeys,
            sealedOnly: sealedOnly, readOnce: readOnce, idempotencyKey: idempotencyKey, sendAt: sendAt)
        let record = try record(for: item, writer: writer, field: { $0 })
        let stored = try await repository.insert([record])
        if stored.first?.id == record.metadata.id { metrics.stored.increment() }
        return stored.first ?? record.metadata
    }

    /// Stores every item in one transaction (all or none; `store.putMany`) and returns each item's notification in
    /// order. Each item is checked as ``put(recipientID:payload:ttlSeconds:recipientKeys:sealedOnly:readOnce:idempotencyKey:writer:)``
    /// checks one (errors name the item: `items[3].payload`); 1 to ``Store/PutMany/maxItems`` items.
    public func putMany(_ items: [Store.Put.Params], writer: String) async throws -> [NotificationMetadata] {
        guard (1...Store.PutMany.maxItems).contains(items.count) else {
            throw StoreError.invalidField("items", "must hold 1–\(Store.PutMany.maxItems) notifications")
        }
        let records = try items.enumerated().map { index, item in
            try record(for: item, writer: writer, field: { "items[\(index)].\($0)" })
        }
        let stored = try await repository.insert(records)
        let new = zip(records, stored).filter { $0.metadata.id == $1.id }.count
        if new > 0 { metrics.stored.increment(by: Int64(new)) }
        return stored
    }

    /// Checks one item and seals its copies; `field` names a field of the item in errors.
    private func record(for item: Store.Put.Params, writer: String, field: (String) -> String) throws
        -> NotificationRecord
    {
        if let reason = TextLimit.recipientID.violation(in: item.recipientId) {
            throw StoreError.invalidField(field("recipientId"), reason)
        }
        guard !item.payload.isEmpty else {
            throw StoreError.invalidField(field("payload"), "must not be empty")
        }
        let payloadBytes = item.payload.utf8.count
        guard payloadBytes <= limits.maxPayloadBytes else {
            throw StoreError.invalidField(
                field("payload"),
                "is \(payloadBytes) bytes of UTF-8; the limit is \(limits.maxPayloadBytes)"
            )
        }
        let ttl = item.ttlSeconds ?? limits.defaultTTLSeconds
        guard (1...limits.maxTTLSeconds).contains(ttl) else {
            throw StoreError.invalidField(field("ttlSeconds"), "must be between 1 and \(limits.maxTTLSeconds) seconds")
        }
        if let key = item.idempotencyKey, let reason = TextLimit.idempotencyKey.violation(in: key) {
            throw StoreError.invalidField(field("idempotencyKey"), reason)
        }
        let keys = try Self.validKeys(item.recipientKeys ?? [], field: field("recipientKeys"))
        let createdAt = now().truncatedToMilliseconds
        if let sendAt = item.sendAt, sendAt.timeIntervalSince(createdAt) > Self.maxHoldSeconds {
            throw StoreError.invalidField(field("sendAt"), "must be at most \(Self.maxHoldSeconds) seconds ahead")
        }
        // A held notification lives its whole lifetime after it is due.
        let start = max(createdAt, item.sendAt?.truncatedToMilliseconds ?? createdAt)
        let metadata = NotificationMetadata(
            id: NotificationID.make(),
            recipientID: item.recipientId,
            createdAt: createdAt,
            expiresAt: start.addingTimeInterval(TimeInterval(ttl)),
            readOnce: item.readOnce ?? false
        )
        let copies = try Self.sealedCopies(of: Data(item.payload.utf8), to: keys, notificationID: metadata.id)
        // A held sealed-only notification keeps its readable copy (sealed at rest) until it is published: its
        // devices are sealed to then.
        let held = item.sendAt != nil
        return NotificationRecord(
            metadata: metadata, payload: item.sealedOnly == true && !held ? nil : item.payload, sealedCopies: copies,
            writerKey: item.idempotencyKey.map { Self.writerKey(writer: writer, key: $0) }, held: held)
    }

    /// The payload sealed (HPKE) to each device's key, bound to the notification and the device.
    private static func sealedCopies(
        of plaintext: Data, to keys: [(String, DevicePublicKey)], notificationID: String
    ) throws -> [SealedCopyRecord] {
        try keys.map { deviceID, key in
            let copy = try SealedPayloadCipher.seal(
                plaintext, to: key, notificationID: notificationID, deviceID: deviceID)
            return SealedCopyRecord(
                deviceID: deviceID, publicKey: key.x963Representation, enc: Data(strictBase64URL: copy.enc),
                ciphertext: Data(strictBase64URL: copy.ciphertext))
        }
    }

    /// Longest a notification may be held for its `sendAt` (push-dispatch's `SECUREPUSH_MAX_SCHEDULE` is lower).
    public static let maxHoldSeconds: TimeInterval = 31 * 86_400

    /// Shows held notifications now that they are due (`store.publish`): each sealed to `recipientKeys`, its readable
    /// copy erased when `sealedOnly`. 1 to ``Store/Publish/maxItems`` items; ids that name nothing come back in
    /// `missingNotificationIds`.
    public func publish(_ items: [Store.Publish.Item]) async throws -> Store.Publish.Result {
        guard (1...Store.Publish.maxItems).contains(items.count) else {
            throw StoreError.invalidField("items", "must hold 1–\(Store.Publish.maxItems) notifications")
        }
        let checked = try items.enumerated().map { index, item in
            (
                id: NotificationID.normalized(item.notificationId),
                keys: try Self.validKeys(item.recipientKeys ?? [], field: "items[\(index)].recipientKeys"),
                eraseReadableCopy: item.sealedOnly == true
            )
        }
        let stored = Dictionary(
            try await repository.storedForPublishing(ids: checked.compactMap(\.id), now: now()).map {
                ($0.metadata.id, $0)
            }, uniquingKeysWith: { first, _ in first })
        var missing: [String] = []
        var publishing: [PublishedNotification] = []
        for (item, entry) in zip(items, checked) {
            guard let id = entry.id, let found = stored[id] else {
                missing.append(item.notificationId)
                continue
            }
            guard found.held else { continue }
            let copies =
                try found.payload.map {
                    try Self.sealedCopies(of: Data($0.utf8), to: entry.keys, notificationID: id)
                } ?? []
            publishing.append(
                PublishedNotification(id: id, sealedCopies: copies, eraseReadableCopy: entry.eraseReadableCopy))
        }
        let published = try await repository.publish(publishing, now: now().truncatedToMilliseconds)
        return Store.Publish.Result(published: published, missingNotificationIds: missing)
    }

    /// Deletes held notifications (`store.discard`: a cancelled scheduled send); shown ones are never touched.
    public func discard(_ ids: [String]) async throws -> Int {
        guard (1...Store.Publish.maxItems).contains(ids.count) else {
            throw StoreError.invalidField("notificationIds", "must name 1–\(Store.Publish.maxItems) notifications")
        }
        return try await repository.discardHeld(ids: ids.compactMap(NotificationID.normalized))
    }

    /// A writer's idempotency key as stored: a digest of the writer and its key, so two clients' keys never meet and
    /// the stored value has one size.
    static func writerKey(writer: String, key: String) -> String {
        Data(SHA256.hash(data: Data("\(writer)\u{0}\(key)".utf8))).base64URLEncodedString()
    }

    /// `recipientKeys` checked: at most ``maxRecipientKeys``, device ids UUIDs (lowercased) named once, keys valid.
    private static func validKeys(_ keys: [Store.RecipientKey], field: String) throws -> [(String, DevicePublicKey)] {
        guard keys.count <= maxRecipientKeys else {
            throw StoreError.invalidField(field, "must name at most \(maxRecipientKeys) devices")
        }
        var seen = Set<String>()
        return try keys.enumerated().map { index, entry in
            guard let deviceID = NotificationID.normalized(entry.deviceId), seen.insert(deviceID).inserted else {
                throw StoreError.invalidField("\(field)[\(index)].deviceId", "must be a UUID named once")
            }
            do throws(DevicePublicKeyError) {
                return (deviceID, try DevicePublicKey(base64URL: entry.publicKey))
            } catch {
                throw StoreError.invalidField("\(field)[\(index)].publicKey", error.reason)
            }
        }
    }

    /// The recipient's notification with its payload; `StoreError.notFound` when missing, expired or someone else's.
    public func get(id: String, recipientID: String) async throws -> NotificationRecord {
        let id = try Self.validID(id)
        let found: NotificationRecord?
        do {
            found = try await repository.find(id: id, recipientID: recipientID, now: now())
        } catch let error as PayloadSealerError {
            // Altered bytes or a missing store key: the caller gets an internal error, operators an alert.
            logger.security(
                SecurityEvent("store.payload.unreadable"), metadata: ["notification.id": "\(id)", "reason": "\(error)"])
            throw error
        }
        guard let record = found else { throw StoreError.notFound }
        return record
    }

    /// Fetches the user's notification (as `deviceID`, when given): the device's sealed copy or the payload. Records
    /// the device's receipt; a read-once notification is erased. `-32004` when missing or someone else's, `-32010`
    /// when already read once.
    public func fetch(id: String, recipientID: String, deviceID: String?) async throws -> Store.StoredNotification {
        let id = try Self.validID(id)
        let deviceID = try deviceID.map(Self.validDeviceID)
        return try Self.result(
            of: try await repository.fetch(
                id: id, recipientID: recipientID, deviceID: deviceID, proven: false, now: now()))
    }

    /// ``fetch(id:recipientID:deviceID:)`` answered without suspending when the repository can
    /// (``ImmediateNotificationFetching``: SQLite, no device, not read-once); `nil` when it cannot, and the caller
    /// takes the async path. Throws what that would throw.
    public func fetchImmediately(id: String, recipientID: String, deviceID: String?) throws
        -> Store.StoredNotification?
    {
        guard deviceID == nil, let repository = immediateRepository else { return nil }
        let id = try Self.validID(id)
        guard let outcome = try repository.fetchImmediately(id: id, recipientID: recipientID, now: now()) else {
            return nil
        }
        return try Self.result(of: outcome)
    }

    /// Fetches the device's sealed copy with a `SecurePush-Device-Proof`: `-32004` (exactly as for a missing
    /// notification) unless the device is one of its sealed recipients (and, when the caller also showed a token,
    /// `tokenSubject`'s); `-32001` for any proof that is not signed by that device's key for exactly this notification
    /// and device, within the window, for the first time. The only fetch that consumes a read-once sealed notification.
    public func fetch(
        id: String, deviceID: String?, proof: String, tokenSubject: String? = nil, address: String? = nil,
        logger: Logger
    ) async throws -> Store.StoredNotification {
        let id = try Self.validID(id)
        guard let deviceID else {
            throw StoreError.invalidField("deviceId", "is required with a SecurePush-Device-Proof")
        }
        let device = try Self.validDeviceID(deviceID)
        let current = now()
        guard let recipient = try await repository.sealedRecipient(id: id, deviceID: device, now: current) else {
            if try await repository.isRevoked(deviceID: device, forNotification: id, now: current) {
                throw refusal(
                    .deviceRevoked, device: device, notification: id, reason: "device revoked", address: address, logger
                )
            }
            throw StoreError.notFound
        }
        guard tokenSubject == nil || tokenSubject == recipient.recipientID,
            let key = try? DevicePublicKey(x963Representation: recipient.publicKey)
        else { throw StoreError.notFound }
        let claims: DeviceProof.Claims
        do {
            claims = try DeviceProof.verify(proof, key: key, notificationID: id, deviceID: device, now: current)
        } catch {
            throw refusal(
                .deviceProofRefused, device: device, notification: id, reason: "\(error)", address: address, logger)
        }
        // A cache kept in memory starts empty: a proof made before this process started might have been accepted by
        // the one before it, so it is refused (devices make a new proof per fetch).
        if let startedAt = proofsMadeBefore, TimeInterval(claims.iat) < startedAt.timeIntervalSince1970.rounded(.down) {
            throw refusal(
                .deviceProofRefused, device: device, notification: id, reason: "made before the store started",
                address: address, logger)
        }
        // Kept until the proof could no longer pass the iat check anyway, and for at least the quota window (2 min):
        // what a device's bound counts.
        let until = max(
            Date(timeIntervalSince1970: TimeInterval(claims.iat) + DeviceProof.window + 1),
            current.addingTimeInterval(2 * DeviceProof.window))
        switch try await replayCache.firstUse(of: claims.jti, deviceID: device, expiresAt: until, now: current) {
        case .first: break
        case .replayed:
            logger.security(
                SecurityEvent("store.proof_replayed"),
                metadata: [LogMetadataKey.deviceID: "\(device)", LogMetadataKey.notificationID: "\(id)"])
            audit?.record(
                "store.fetch.refused",
                [
                    "by": .text("proof"), "device": .device(device, owner: recipient.recipientID),
                    "notification": .text(id), "reason": .text("proof replayed"), "address": .address(address),
                ])
            throw StoreError.deviceProofRefused
        case .deviceQuotaExceeded(let limit, let retryAfter):
            logger.security(
                SecurityEvent("store.proof_quota_exceeded"),
                metadata: [LogMetadataKey.deviceID: "\(device)", "limit": "\(limit)"])
            throw StoreError.proofQuotaExceeded(limit: limit, retryAfterSeconds: retryAfter)
        }
        let fetched = try Self.result(
            of: try await repository.fetch(
                id: id, recipientID: recipient.recipientID, deviceID: device, proven: true, now: current))
        audit?.record(
            "store.fetch",
            [
                "by": .text("proof"), "user": .user(recipient.recipientID),
                "device": .device(device, owner: recipient.recipientID), "notification": .text(id),
                "address": .address(address),
            ])
        return fetched
    }

    /// `error` for a refused proof, after the `store.proof_refused` security event saying why (callers learn only
    /// `error`).
    private func refusal(
        _ error: StoreError, device: String, notification: String, reason: String, address: String?,
        _ logger: Logger
    ) -> StoreError {
        audit?.record(
            "store.fetch.refused",
            [
                "by": .text("proof"), "device": .device(device, owner: nil), "notification": .text(notification),
                "reason": .text(reason), "address": .address(address),
            ])
        logger.security(
            SecurityEvent("store.proof_refused"),
            metadata: [
                LogMetadataKey.deviceID: "\(device)", LogMetadataKey.notificationID: "\(notification)",
                "reason": "\(reason)",
            ])
        return error
    }

    /// Revokes devices for push-dispatch (`store.revokeDevices`): deletes their sealed copies of every notification
    /// created until now and refuses their proofs for those. Returns how many copies were deleted.
    public func revokeDevices(_ deviceIDs: [String], revocationID: String?) async throws -> Int {
        guard (1...Store.RevokeDevices.maxDeviceIDs).contains(deviceIDs.count) else {
            throw StoreError.invalidField(
                "deviceIds", "must name 1 to \(Store.RevokeDevices.maxDeviceIDs) devices (got \(deviceIDs.count))")
        }
        var seen = Set<String>()
        let ids = try deviceIDs.enumerated().map { index, id in
            guard let normalized = NotificationID.normalized(id), seen.insert(normalized).inserted else {
                throw StoreError.invalidField("deviceIds[\(index)]", "must be a UUID named once")
            }
            return normalized
        }
        let revocation = try revocationID.map { id in
            guard let normalized = NotificationID.normalized(id) else {
                throw StoreError.invalidField("revocationId", "must be a UUID")
            }
            return normalized
        }
        let deleted = try await repository.revokeDevices(ids, revocationID: revocation, now: now())
        logger.security(
            SecurityEvent("store.devices_revoked"),
            metadata: ["store.devices": "\(ids.count)", "store.sealed_copies_deleted": "\(deleted)"])
        audit?.record(
            "store.devices.revoked",
            [
                "devices": .integer(Int64(ids.count)), "sealedCopiesDeleted": .integer(Int64(deleted)),
                "revocation": .text(revocation ?? ""),
            ])
        return deleted
    }

    /// Which devices fetched the notification, and when first (for push-dispatch's `push.status`).
    public func receipts(id: String) async throws -> [Store.Receipt] {
        let id = try Self.validID(id)
        return try await repository.receipts(id: id).map {
            Store.Receipt(deviceId: $0.deviceID, fetchedAt: $0.fetchedAt)
        }
    }

    /// The receipts recorded at or after `after` (milliseconds since 1970), at most `limit` (1–1,000, default 500).
    public func receiptsSince(after: Int64, limit: Int?) async throws -> Store.ReceiptsSince.Result {
        guard after >= 0 else {
            throw StoreError.invalidField("after", "must be 0 or a time in milliseconds since 1970")
        }
        let limit = limit ?? 500
        guard (1...1_000).contains(limit) else { throw StoreError.invalidField("limit", "must be 1–1000") }
        let receipts = try await repository.receipts(since: Date(millisecondsSince1970: after), limit: limit).map {
            Store.FeedReceipt(notificationId: $0.notificationID, deviceId: $0.deviceID, fetchedAt: $0.fetchedAt)
        }
        return Store.ReceiptsSince.Result(
            receipts: receipts, next: receipts.last?.fetchedAt.millisecondsSince1970 ?? after)
    }

    private static func result(of outcome: FetchOutcome) throws -> Store.StoredNotification {
        switch outcome {
        case .missing: throw StoreError.notFound
        case .gone(let readAt): throw StoreError.gone(readAt: readAt)
        case .deviceRequired:
            throw StoreError.invalidField(
                "deviceId", "is required: this notification is sealed to the recipient's devices")
        case .proofRequired:
            throw StoreError.invalidField(
                DeviceProof.headerName,
                "is required: this read-once notification is sealed to the recipient's devices and only a device's "
                    + "proof may consume it")
        case .payload(let metadata, let payload):
            return Store.StoredNotification(
                notificationId: metadata.id, payload: payload, createdAt: metadata.createdAt,
                expiresAt: metadata.expiresAt, readAt: metadata.readAt)
        case .sealed(let metadata, let copy):
            guard let enc = copy.enc, let ciphertext = copy.ciphertext else { throw StoreError.corruptPayload }
            return Store.StoredNotification(
                notificationId: metadata.id,
                sealed: Store.SealedCopy(
                    deviceId: copy.deviceID, enc: enc.base64URLEncodedString(),
                    ciphertext: ciphertext.base64URLEncodedString()),
                createdAt: metadata.createdAt, expiresAt: metadata.expiresAt, readAt: metadata.readAt)
        }
    }

    private static func validDeviceID(_ id: String) throws -> String {
        guard let normalized = NotificationID.normalized(id) else {
            throw StoreError.invalidField("deviceId", "must be a UUID")
        }
        return normalized
    }

    /// A page of the recipient's unexpired notifications, newest first.
    /// - Parameter cursor: the `encoded` form of a previous page's `next`.
    public func list(recipientID: String, unreadOnly: Bool, limit: Int?, cursor: String?) async throws
        -> NotificationPage
    {
        let limit = limit ?? Self.defaultListLimit
        guard Self.listLimits.contains(limit) else {
            throw StoreError.invalidField(
                "limit", "must be between \(Self.listLimits.lowerBound) and \(Self.listLimits.upperBound)")
        }
        var position: ListCursor?
        if let cursor {
            guard let decoded = ListCursor(encoded: cursor) else {
                throw StoreError.invalidField("cursor", "is not a cursor returned by store.list")
            }
            position = decoded
        }
        // One extra row tells whether another page follows without a second query.
        let rows = try await repository.list(
            recipientID: recipientID, unreadOnly: unreadOnly, after: position, limit: limit + 1, now: now())
        let items = Array(rows.prefix(limit))
        let next = rows.count > limit ? items.last.map(ListCursor.init(after:)) : nil
        return NotificationPage(items: items, next: next)
    }

    /// Marks the notification read and returns when it was first marked.
    public func markRead(id: String, recipientID: String) async throws -> Date {
        let id = try Self.validID(id)
        let current = now()
        guard let readAt = try await repository.markRead(id: id, recipientID: recipientID, at: current, now: current)
        else { throw StoreError.notFound }
        return readAt
    }

    /// Deletes the recipient's notification.
    public func delete(id: String, recipientID: String) async throws {
        let id = try Self.validID(id)
        guard try await repository.delete(id: id, recipientID: recipientID, now: now()) else {
            throw StoreError.notFound
        }
    }

    /// Deletes every expired notification; returns how many (the purge worker calls this).
    @discardableResult
    public func purgeExpired() async throws -> Int {
        let removed = try await repository.deleteExpired(now: now())
        metrics.purged.increment(by: removed)
        retentionMetrics.purged("receipts", try await repository.purgeReceipts(now: now(), retention: receiptRetention))
        if removed > 0 {
            logger.debug("store.purge.removed", metadata: ["store.purge.count": "\(removed)"])
        }
        return removed
    }

    private static func validID(_ id: String) throws -> String {
        guard let normalized = NotificationID.normalized(id) else {
            throw StoreError.invalidField("notificationId", "must be a UUID")
        }
        return normalized
    }

    /// `store.eraseUser`: deletes every notification of `userID` and everything of them and of `deviceIDs`, and
    /// records the erasure. Throws `-32602` naming `userId` or `deviceIds` for ids that cannot be ours.
    public func eraseUser(_ userID: String, deviceIDs: [String]) async throws -> [String: Int] {
        guard !userID.isEmpty, userID.utf8.count <= Self.maxRecipientIDLength else {
            throw StoreError.invalidField("userId", "must be 1 to \(Self.maxRecipientIDLength) bytes")
        }
        guard deviceIDs.count <= Store.EraseUser.maxDeviceIDs else {
            throw StoreError.invalidField("deviceIds", "must name at most \(Store.EraseUser.maxDeviceIDs) devices")
        }
        let devices = try deviceIDs.enumerated().map { index, id in
            guard let normalized = NotificationID.normalized(id) else {
                throw StoreError.invalidField("deviceIds[\(index)]", "must be a UUID")
            }
            return normalized
        }
        let erased = try await repository.eraseUser(userID, deviceIDs: devices)
        audit?.forget(userID)
        audit?.record("store.user.erased", .erasure(of: userID, removed: erased))
        logger.notice("store.user.erased", metadata: erased.mapValues { "\($0)" })
        return erased
    }
}
