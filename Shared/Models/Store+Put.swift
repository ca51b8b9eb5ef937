import Foundation

extension Store {
    /// `store.put {recipientId, payload, ttlSeconds?}` (scope `store:write`) → `{notificationId, expiresAt}`.
    public enum Put: RPCMethod {
        public static let name = "store.put"

        public struct Params: Codable, Sendable, Hashable {
            /// The user id of the only person who may read the payload.
            public var recipientId: String
            /// The sensitive text; at most 64 KiB of UTF-8 by default.
            public var payload: String
            /// Lifetime in seconds; default 7 days, at most 30 days.
            public var ttlSeconds: Int?
            public init(recipientId: String, payload: String, ttlSeconds: Int? = nil) {
                self.recipientId = recipientId
                self.payload = payload
                self.ttlSeconds = ttlSeconds
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// A random 128-bit id (UUIDv4), never sequential.
            public var notificationId: String
            public var expiresAt: Date
            public init(notificationId: String, expiresAt: Date) {
                self.notificationId = notificationId
                self.expiresAt = expiresAt
            }
        }
    }
}
