import Foundation

extension Push {
    /// `push.send` with `recipientIds` (scope `push:send`) → `{notifications, unknownRecipientIds}`: one notification
    /// per recipient auth knows, each stored and pushed as ``Send`` does for one. The same wire method as ``Send``;
    /// exactly one of `recipientId` and `recipientIds` is given (`-32602` naming `recipientIds` otherwise).
    ///
    /// The result names no deliveries (10,000 recipients' devices would pass a client's response limit): ask
    /// `push.status` per notification. The idempotency key covers the whole call: a retry after a crash halfway ends
    /// with exactly one notification per recipient.
    public enum SendToMany: RPCMethod {
        public static let name = Send.name
        /// Most recipients one call may name (after duplicates are removed).
        public static let maxRecipients = 10_000

        public struct Params: Codable, Sendable, Hashable {
            /// 1 to ``maxRecipients`` user ids; a repeated id is sent to once.
            public var recipientIds: [String]
            /// The sensitive text, the same for every recipient: it goes to notification-store only.
            public var payload: String
            /// As in ``Send/Params``.
            public var ttlSeconds: Int?
            /// Covers the whole call (``Send/Params/idempotencyKey``).
            public var idempotencyKey: String?
            /// As in ``Send/Params``.
            public var sealedOnly: Bool?
            /// As in ``Send/Params``.
            public var readOnce: Bool?
            /// As in ``Send/Params``.
            public var appId: String?
            /// As in ``Send/Params``.
            public var priority: Priority?
            /// As in ``Send/Params``, per recipient.
            public var collapseId: String?
            /// As in ``Send/Params``: every recipient's notification is due then.
            public var sendAt: Date?
            public init(
                recipientIds: [String], payload: String, ttlSeconds: Int? = nil, idempotencyKey: String? = nil,
                sealedOnly: Bool? = nil, readOnce: Bool? = nil, appId: String? = nil, priority: Priority? = nil,
                collapseId: String? = nil, sendAt: Date? = nil
            ) {
                self.sendAt = sendAt
                self.recipientIds = recipientIds
                self.payload = payload
                self.ttlSeconds = ttlSeconds
                self.idempotencyKey = idempotencyKey
                self.sealedOnly = sealedOnly
                self.readOnce = readOnce
                self.appId = appId
                self.priority = priority
                self.collapseId = collapseId
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// One per known recipient, in the order the recipients were first named.
            public var notifications: [RecipientNotification]
            /// The recipients auth knows no user by: nothing was stored or pushed for them.
            public var unknownRecipientIds: [String]
            public init(notifications: [RecipientNotification], unknownRecipientIds: [String]) {
                self.notifications = notifications
                self.unknownRecipientIds = unknownRecipientIds
            }
        }
    }

    /// One recipient's notification of a send to many.
    public struct RecipientNotification: Codable, Sendable, Hashable {
        /// The recipient.
        public var recipientId: String
        /// Its notification (ask `push.status` for its deliveries).
        public var notificationId: String
        public init(recipientId: String, notificationId: String) {
            self.recipientId = recipientId
            self.notificationId = notificationId
        }
    }
}

extension Push.SendToMany.Result: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("notifications", notifications) { sent, writer in sent.write(to: &writer) }
        writer.member("unknownRecipientIds", unknownRecipientIds) { id, writer in writer.string(id) }
        writer.endObject()
    }
}

extension Push.RecipientNotification: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("notificationId", notificationId)
        writer.member("recipientId", recipientId)
        writer.endObject()
    }
}
