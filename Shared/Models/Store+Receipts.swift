import Foundation

extension Store {
    /// `store.receipts {notificationId}` (scope `store:write`) → `{receipts}`: which devices fetched the notification
    /// and when (push-dispatch adds them to `push.status` as `fetchedAt`). Receipts outlive a read-once erasure.
    public enum Receipts: RPCMethod {
        public static let name = "store.receipts"

        public struct Params: Codable, Sendable, Hashable {
            /// A notification this client stored.
            public var notificationId: String
            public init(notificationId: String) { self.notificationId = notificationId }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// One per device that fetched the notification, first fetch each.
            public var receipts: [Receipt]
            public init(receipts: [Receipt]) { self.receipts = receipts }
        }
    }

    /// The first successful fetch of a notification attributable to one device.
    public struct Receipt: Codable, Sendable, Hashable {
        /// The device that fetched it.
        public var deviceId: String
        /// When that device first fetched it successfully.
        public var fetchedAt: Date
        public init(deviceId: String, fetchedAt: Date) {
            self.deviceId = deviceId
            self.fetchedAt = fetchedAt
        }
    }
}
