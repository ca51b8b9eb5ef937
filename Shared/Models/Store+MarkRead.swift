import Foundation

extension Store {
    /// `store.markRead {notificationId}` (user token) → `{readAt}`; marking twice keeps the first time.
    public enum MarkRead: RPCMethod {
        public static let name = "store.markRead"
        public typealias Params = Get.Params

        public struct Result: Codable, Sendable, Hashable {
            /// When it was first marked read (marking again keeps this time).
            public var readAt: Date
            public init(readAt: Date) { self.readAt = readAt }
        }
    }
}
