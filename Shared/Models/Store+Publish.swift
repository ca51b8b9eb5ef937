extension Store {
    /// `store.publish {items}` (scope `store:write`) → `{published, missingNotificationIds}`: shows notifications
    /// stored with `sendAt` (held from their recipients) now that they are due, each sealed to the recipient's sealed
    /// devices push-dispatch resolved at that moment. With `sealedOnly` the held server-readable copy is erased as the
    /// sealed copies are made. Publishing one already shown changes nothing (a retried call).
    public enum Publish: RPCMethod {
        public static let name = "store.publish"
        /// Most items one call may hold.
        public static let maxItems = 1_000

        public struct Params: Codable, Sendable, Hashable {
            /// 1 to ``maxItems`` notifications to show.
            public var items: [Item]
            public init(items: [Item]) { self.items = items }
        }

        /// One held notification and the devices its copies are sealed to.
        public struct Item: Codable, Sendable, Hashable {
            public var notificationId: String
            /// The recipient's sealed devices now (as in `store.put`).
            public var recipientKeys: [RecipientKey]?
            /// `true`: no server-readable copy is kept once published.
            public var sealedOnly: Bool?
            public init(notificationId: String, recipientKeys: [RecipientKey]? = nil, sealedOnly: Bool? = nil) {
                self.notificationId = notificationId
                self.recipientKeys = recipientKeys
                self.sealedOnly = sealedOnly
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// How many notifications this call showed (already shown ones are not counted).
            public var published: Int
            /// Items that name no held or shown notification (expired, discarded or never stored).
            public var missingNotificationIds: [String]
            public init(published: Int, missingNotificationIds: [String]) {
                self.published = published
                self.missingNotificationIds = missingNotificationIds
            }
        }
    }
}
