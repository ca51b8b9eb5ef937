extension Store {
    /// `store.discard {notificationIds}` (scope `store:write`) → `{discarded}`: deletes notifications still held for
    /// their `sendAt` (a cancelled scheduled send); shown ones are never touched.
    public enum Discard: RPCMethod {
        public static let name = "store.discard"

        public struct Params: Codable, Sendable, Hashable {
            /// 1 to ``Publish/maxItems`` held notifications.
            public var notificationIds: [String]
            public init(notificationIds: [String]) { self.notificationIds = notificationIds }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// How many held notifications were deleted.
            public var discarded: Int
            public init(discarded: Int) { self.discarded = discarded }
        }
    }
}
