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

    public init(id: String, recipientID: String, createdAt: Date, expiresAt: Date, readAt: Date? = nil) {
        self.id = id
        self.recipientID = recipientID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.readAt = readAt
    }
}

/// A stored notification with its payload.
public struct NotificationRecord: Sendable, Hashable {
    /// Everything but the payload.
    public var metadata: NotificationMetadata
    /// The sensitive text, as given to `store.put`.
    public var payload: String

    public init(metadata: NotificationMetadata, payload: String) {
        self.metadata = metadata
        self.payload = payload
    }
}
