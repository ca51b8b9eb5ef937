import Foundation
import Logging
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

    private let repository: any NotificationRepository
    private let limits: Limits
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let metrics: StoreMetrics

    /// - Parameters:
    ///   - repository: where notifications live.
    ///   - limits: payload and lifetime bounds.
    ///   - now: the clock (injected so expiry can be tested without waiting).
    ///   - logger: for purge results (debug level).
    ///   - metrics: counts notifications stored and purged.
    public init(
        repository: any NotificationRepository,
        limits: Limits = Limits(),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger,
        metrics: StoreMetrics = .disabled
    ) {
        self.repository = repository
        self.limits = limits
        self.now = now
        self.logger = logger
        self.metrics = metrics
    }

    /// Stores `payload` for `recipientID` and returns the new notification (its id is a fresh UUIDv4).
    public func put(recipientID: String, payload: String, ttlSeconds: Int?) async throws -> NotificationMetadata {
        if let reason = TextLimit.recipientID.violation(in: recipientID) {
            throw StoreError.invalidField("recipientId", reason)
        }
        guard !payload.isEmpty else {
            throw StoreError.invalidField("payload", "must not be empty")
        }
        let payloadBytes = payload.utf8.count
        guard payloadBytes <= limits.maxPayloadBytes else {
            throw StoreError.invalidField(
                "payload",
                "is \(payloadBytes) bytes of UTF-8; the limit is \(limits.maxPayloadBytes)"
            )
        }
        let ttl = ttlSeconds ?? limits.defaultTTLSeconds
        guard (1...limits.maxTTLSeconds).contains(ttl) else {
            throw StoreError.invalidField("ttlSeconds", "must be between 1 and \(limits.maxTTLSeconds) seconds")
        }
        let createdAt = now().truncatedToMilliseconds
        let metadata = NotificationMetadata(
            id: NotificationID.make(),
            recipientID: recipientID,
            createdAt: createdAt,
            expiresAt: createdAt.addingTimeInterval(TimeInterval(ttl))
        )
        try await repository.insert(NotificationRecord(metadata: metadata, payload: payload))
        metrics.stored.increment()
        return metadata
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
}
