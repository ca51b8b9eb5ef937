import Foundation

extension Store {
    /// `store.list {unreadOnly?, limit?, cursor?}` (user token) → the caller's notifications, newest first, without payloads.
    public enum List: RPCMethod {
        public static let name = "store.list"

        public struct Params: Codable, Sendable, Hashable {
            /// `true` lists only notifications not yet marked read.
            public var unreadOnly: Bool?
            /// 1–200; default 50.
            public var limit: Int?
            /// The `nextCursor` of the previous page.
            public var cursor: String?
            public init(unreadOnly: Bool? = nil, limit: Int? = nil, cursor: String? = nil) {
                self.unreadOnly = unreadOnly
                self.limit = limit
                self.cursor = cursor
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The caller's notifications, newest first.
            public var items: [NotificationSummary]
            /// Present when more items follow.
            public var nextCursor: String?
            public init(items: [NotificationSummary], nextCursor: String? = nil) {
                self.items = items
                self.nextCursor = nextCursor
            }
        }
    }

    /// A notification in a listing: everything but the payload.
    public struct NotificationSummary: Codable, Sendable, Hashable {
        /// The notification's id.
        public var notificationId: String
        /// When the notification was stored.
        public var createdAt: Date
        /// When it expires and is purged.
        public var expiresAt: Date
        /// When the recipient first marked it read, if ever.
        public var readAt: Date?
        /// `true` for a read-once notification already fetched: every copy is erased, there is nothing left to fetch.
        public var gone: Bool?
        public init(notificationId: String, createdAt: Date, expiresAt: Date, readAt: Date? = nil, gone: Bool? = nil) {
            self.gone = gone
            self.notificationId = notificationId
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.readAt = readAt
        }
    }
}
