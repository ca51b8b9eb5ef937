import Foundation

/// A stored notification without its payload: what listings show.
public struct NotificationMetadata: Sendable, Hashable {
    /// A lowercase UUIDv4.
    public var id: String
    /// The user id of the only person who may read it.
    public var recipientID: String
    /// When it was stored, with millisecond precision.
    public var createdAt: Date
    /// When it stops existing for readers.
    public var expiresAt: Date
    /// When the recipient first marked it read.
    public var readAt: Date?
    /// Whether the first successful fetch erases every copy.
    public var readOnce: Bool
    /// When a read-once notification was fetched and its copies erased.
    public var goneAt: Date?
    /// Whether it is held for its `sendAt` (set where the writer is answered: `store.put`/`putMany`).
    public var held = false

    public init(
        id: String, recipientID: String, createdAt: Date, expiresAt: Date, readAt: Date? = nil, readOnce: Bool = false,
        goneAt: Date? = nil
    ) {
        self.readOnce = readOnce
        self.goneAt = goneAt
        self.id = id
        self.recipientID = recipientID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.readAt = readAt
    }
}

/// A stored notification with its copies: the server-readable payload (if any) and one sealed copy per sealed device.
public struct NotificationRecord: Sendable, Hashable {
    /// Everything but the payload.
    public var metadata: NotificationMetadata
    /// The sensitive text, as given to `store.put`; `nil` when no server-readable copy is kept (sealed only, or erased).
    public var payload: String?
    /// The payload sealed to each sealed device of the recipient.
    public var sealedCopies: [SealedCopyRecord]
    /// Names the writer's idempotency key (a digest of the writing client and its key): at most one notification
    /// holds it. `nil` when none was given.
    public var writerKey: String?
    /// Held from its recipient until `store.publish` (a scheduled send not yet due): not listed, not fetched.
    public var held: Bool

    public init(
        metadata: NotificationMetadata, payload: String?, sealedCopies: [SealedCopyRecord] = [],
        writerKey: String? = nil, held: Bool = false
    ) {
        self.held = held
        self.writerKey = writerKey
        self.metadata = metadata
        self.payload = payload
        self.sealedCopies = sealedCopies
    }
}

/// The payload sealed (HPKE) to one device, with the key it was sealed to (which also verifies that device's proofs).
public struct SealedCopyRecord: Sendable, Hashable {
    public var deviceID: String
    /// The device's public key, X9.62 uncompressed.
    public var publicKey: Data
    /// The HPKE encapsulated key; `nil` once a read-once notification was erased.
    public var enc: Data?
    /// The HPKE ciphertext; `nil` once a read-once notification was erased.
    public var ciphertext: Data?

    public init(deviceID: String, publicKey: Data, enc: Data?, ciphertext: Data?) {
        self.deviceID = deviceID
        self.publicKey = publicKey
        self.enc = enc
        self.ciphertext = ciphertext
    }
}

/// What one fetch of a notification found (and, for a read-once notification, consumed).
public enum FetchOutcome: Sendable, Hashable {
    /// No such unexpired notification for this recipient, or the device is not one of its recipients.
    case missing
    /// A read-once notification already fetched at `readAt`: nothing is left.
    case gone(readAt: Date)
    /// The server-readable payload.
    case payload(NotificationMetadata, String)
    /// The device's sealed copy.
    case sealed(NotificationMetadata, SealedCopyRecord)
    /// No server-readable copy exists and no device was named: only a sealed device can fetch it.
    case deviceRequired
    /// A read-once notification's sealed copy, asked for without that device's proof: consuming it needs the device's
    /// key, so nothing was read or changed.
    case proofRequired
}
