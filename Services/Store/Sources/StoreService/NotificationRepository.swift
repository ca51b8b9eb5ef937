import Foundation

/// Where notifications are kept. Every read and change is scoped to a recipient and to what has not expired
/// at `now`, so another user's notification and an expired one look exactly like a missing one.
public protocol NotificationRepository: Sendable {
    /// Stores new notifications and their sealed copies, all in one transaction, and returns each one's metadata in
    /// order. A record whose ``NotificationRecord/writerKey`` an earlier notification holds is not stored: that
    /// notification's metadata stands in its place.
    func insert(_ records: [NotificationRecord]) async throws -> [NotificationMetadata]

    /// Fetches the recipient's notification as `deviceID` (when given) in one transaction: the device's sealed copy
    /// when it has one, else the server-readable payload. The fetch is recorded as the device's receipt, and a
    /// read-once notification has every copy erased: of concurrent fetches, exactly one gets the payload. A read-once
    /// notification is consumed through `deviceID`'s sealed copy only when `proven` (the caller showed that device's
    /// proof); otherwise the outcome is ``FetchOutcome/proofRequired`` and nothing changes. With `proven`, a device that
    /// has no copy (revoked since its proof was checked) gets ``FetchOutcome/missing``: nothing else in its name.
    func fetch(id: String, recipientID: String, deviceID: String?, proven: Bool, now: Date) async throws
        -> FetchOutcome

    /// The recipient and public key recorded for `deviceID` on the unexpired notification `id` (erased or not);
    /// `nil` when the device is not one of its sealed recipients, or was revoked after the notification was created.
    func sealedRecipient(id: String, deviceID: String, now: Date) async throws -> (
        recipientID: String, publicKey: Data
    )?

    /// Whether `deviceID` was revoked after notification `id` (unexpired) was created: its copy was deleted then.
    func isRevoked(deviceID: String, forNotification id: String, now: Date) async throws -> Bool

    /// Revokes `deviceIDs` at `now`: deletes their sealed copies of every notification created until then, in one
    /// transaction, and returns how many. A device whose last revocation carried `revocationID` already is skipped
    /// (a retried call). Later ``sealedRecipient(id:deviceID:now:)`` lookups skip copies created before a revocation.
    func revokeDevices(_ deviceIDs: [String], revocationID: String?, now: Date) async throws -> Int

    /// The first successful fetch of notification `id` by each device, oldest first.
    func receipts(id: String) async throws -> [(deviceID: String, fetchedAt: Date)]

    /// Up to `limit` receipts fetched at or after `after`, oldest first (ties by notification, then device).
    func receipts(since after: Date, limit: Int) async throws -> [(
        notificationID: String, deviceID: String, fetchedAt: Date
    )]

    /// The recipient's unexpired notification with `id`, payload included.
    func find(id: String, recipientID: String, now: Date) async throws -> NotificationRecord?

    /// Up to `limit` of the recipient's unexpired notifications, newest first (ties by id, descending),
    /// starting after `cursor`.
    func list(recipientID: String, unreadOnly: Bool, after cursor: ListCursor?, limit: Int, now: Date) async throws
        -> [NotificationMetadata]

    /// Marks the notification read at `at` unless it already was; returns the (first) read time,
    /// or `nil` when there is no such unexpired notification for the recipient.
    func markRead(id: String, recipientID: String, at: Date, now: Date) async throws -> Date?

    /// Deletes the recipient's unexpired notification; `false` when there was none.
    func delete(id: String, recipientID: String, now: Date) async throws -> Bool

    /// The unexpired notifications among `ids`, held or shown, each held one with its server-readable payload (a
    /// scheduled send's, kept until it is published).
    func storedForPublishing(ids: [String], now: Date) async throws -> [StoredForPublishing]

    /// Shows each held notification in one transaction: its creation time becomes `now`, its sealed copies are
    /// added, and with ``PublishedNotification/eraseReadableCopy`` its readable copy is erased. A notification shown
    /// already is left as it is. Returns how many were shown.
    func publish(_ items: [PublishedNotification], now: Date) async throws -> Int

    /// Deletes the notifications among `ids` that are still held (a cancelled scheduled send), with their copies;
    /// returns how many.
    func discardHeld(ids: [String]) async throws -> Int

    /// Deletes everything that expired at or before `now`; returns how many.
    func deleteExpired(now: Date) async throws -> Int

    /// Deletes receipts whose notification expired more than `retention` before `now`; returns how many.
    func purgeReceipts(now: Date, retention: Duration) async throws -> Int

    /// Deletes everything of `userID` and of `deviceIDs` (``Store/EraseUser``); returns the rows deleted by kind.
    func eraseUser(_ userID: String, deviceIDs: [String]) async throws -> [String: Int]
}

/// A repository that can answer the common fetch without suspending, when its database reads immediately (SQLite).
public protocol ImmediateNotificationFetching: Sendable {
    /// ``NotificationRepository/fetch(id:recipientID:deviceID:now:)`` for no particular device, answered on the calling
    /// thread; `nil` when that takes more than one read (a read-once notification changes when fetched) or the
    /// database cannot read without suspending (PostgreSQL, or no SQLite reader idle right now). It records nothing:
    /// a fetch for no device leaves no receipt.
    func fetchImmediately(id: String, recipientID: String, now: Date) throws -> FetchOutcome?
}

extension NotificationRepository {
    /// Stores one new notification and its sealed copies (``insert(_:)-([NotificationRecord])``).
    public func insert(_ record: NotificationRecord) async throws {
        _ = try await insert([record])
    }
}

/// A notification `store.publish` names, as stored.
public struct StoredForPublishing: Sendable, Hashable {
    public var metadata: NotificationMetadata
    /// The held notification's readable payload; `nil` once shown, or when none is kept.
    public var payload: String?
    /// Whether it is still held from its recipient.
    public var held: Bool

    public init(metadata: NotificationMetadata, payload: String?, held: Bool) {
        self.metadata = metadata
        self.payload = payload
        self.held = held
    }
}

/// A held notification to show, with the sealed copies made for it now.
public struct PublishedNotification: Sendable, Hashable {
    public var id: String
    public var sealedCopies: [SealedCopyRecord]
    /// Whether the readable copy is erased as it is shown (a sealed-only send).
    public var eraseReadableCopy: Bool

    public init(id: String, sealedCopies: [SealedCopyRecord], eraseReadableCopy: Bool) {
        self.id = id
        self.sealedCopies = sealedCopies
        self.eraseReadableCopy = eraseReadableCopy
    }
}
