import Foundation

extension Store {
    /// `store.receiptsSince {after, limit?}` (scope `store:write`) → `{receipts, next}`: every receipt (a device's first
    /// fetch of a notification) recorded at or after `after` (milliseconds since 1970: `0`, or an earlier call's
    /// `next`), oldest first, at most `limit` (1–1,000, default 500). push-dispatch reads it to send
    /// `notification.fetched` webhooks, since the store never calls push-dispatch. Receipts of one millisecond come in
    /// one order every time, so a reader that asks again from a little earlier sees the same ones again and drops
    /// them by (notification, device). `-32602` naming `after` (negative) or `limit`.
    public enum ReceiptsSince: RPCMethod {
        public static let name = "store.receiptsSince"

        public struct Params: Codable, Sendable, Hashable {
            /// Receipts fetched at or after this time (milliseconds since 1970).
            public var after: Int64
            /// Most receipts to return.
            public var limit: Int?
            public init(after: Int64, limit: Int? = nil) {
                self.after = after
                self.limit = limit
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The receipts, oldest first.
            public var receipts: [FeedReceipt]
            /// The time of the last receipt returned (milliseconds since 1970); `after` when there were none.
            public var next: Int64
            public init(receipts: [FeedReceipt], next: Int64) {
                self.receipts = receipts
                self.next = next
            }
        }
    }

    /// A receipt in ``ReceiptsSince``: the first fetch of a notification by one device.
    public struct FeedReceipt: Codable, Sendable, Hashable {
        /// The notification fetched.
        public var notificationId: String
        /// The device that fetched it.
        public var deviceId: String
        /// When.
        public var fetchedAt: Date
        public init(notificationId: String, deviceId: String, fetchedAt: Date) {
            self.notificationId = notificationId
            self.deviceId = deviceId
            self.fetchedAt = fetchedAt
        }
    }
}
