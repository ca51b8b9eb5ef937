import Foundation

extension Store {
    /// `store.get {notificationId}` (user token, recipient only) → the notification with its payload.
    public enum Get: RPCMethod {
        public static let name = "store.get"

        public struct Params: Codable, Sendable, Hashable {
            public var notificationId: String
            public init(notificationId: String) { self.notificationId = notificationId }
        }

        public typealias Result = StoredNotification
    }

    /// A notification with its payload, as its recipient fetches it.
    public struct StoredNotification: Codable, Sendable, Hashable {
        public var notificationId: String
        public var payload: String
        public var createdAt: Date
        public var expiresAt: Date
        public var readAt: Date?
        public init(notificationId: String, payload: String, createdAt: Date, expiresAt: Date, readAt: Date? = nil) {
            self.notificationId = notificationId
            self.payload = payload
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.readAt = readAt
        }
    }
}
