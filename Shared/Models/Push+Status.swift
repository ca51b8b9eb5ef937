import Foundation

extension Push {
    /// `push.status {notificationId}` (scope `push:send`, the sending client only) → per-device delivery state.
    public enum Status: RPCMethod {
        public static let name = "push.status"

        public struct Params: Codable, Sendable, Hashable {
            /// A notification id this client's `push.send` returned.
            public var notificationId: String
            public init(notificationId: String) { self.notificationId = notificationId }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The notification asked about.
            public var notificationId: String
            /// One entry per device the id is delivered to.
            public var deliveries: [DeliveryState]
            /// The id of the trace `push.send` started (32 hex digits), when push-dispatch traced the send: look
            /// it up in the tracing backend to see the notification's whole journey. Absent when not traced.
            public var traceId: String?
            /// Where the send stands: `scheduled` (waiting for `sendAt`), `cancelled` (withdrawn by `push.cancel`) or
            /// `sent` (its devices were resolved and its deliveries queued). Always present from push-dispatch.
            public var state: SendState?
            /// When a scheduled send is (or was) due; absent for a send made at once.
            public var sendAt: Date?
            public init(
                notificationId: String, deliveries: [DeliveryState], traceId: String? = nil, state: SendState? = nil,
                sendAt: Date? = nil
            ) {
                self.state = state
                self.sendAt = sendAt
                self.notificationId = notificationId
                self.deliveries = deliveries
                self.traceId = traceId
            }
        }

        /// One delivery with its history.
        public struct DeliveryState: Codable, Sendable, Hashable {
            /// The device.
            public var deviceId: String
            /// How the device is reached.
            public var platform: Platform
            /// The delivery's current state.
            public var status: DeliveryStatus
            /// Delivery attempts so far.
            public var attempts: Int
            /// The last attempt's error, when it failed or will be retried.
            public var lastError: String?
            /// When the delivery's state last changed.
            public var updatedAt: Date
            /// When this device first fetched the payload successfully (by proof, or by token with its `deviceId`).
            public var fetchedAt: Date?
            public init(
                deviceId: String, platform: Platform, status: DeliveryStatus, attempts: Int, lastError: String? = nil,
                updatedAt: Date, fetchedAt: Date? = nil
            ) {
                self.fetchedAt = fetchedAt
                self.deviceId = deviceId
                self.platform = platform
                self.status = status
                self.attempts = attempts
                self.lastError = lastError
                self.updatedAt = updatedAt
            }
        }
    }
}
