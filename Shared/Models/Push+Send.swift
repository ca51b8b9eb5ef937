import Foundation

extension Push {
    /// `push.send {recipientId, payload, ttlSeconds?, idempotencyKey?, sealedOnly?, readOnce?}` (scope `push:send`) →
    /// `{notificationId, deliveries}`. The payload goes to the store; only the id goes to devices.
    public enum Send: RPCMethod {
        public static let name = "push.send"

        public struct Params: Codable, Sendable, Hashable {
            public var recipientId: String
            public var payload: String
            public var ttlSeconds: Int?
            /// The same key from the same client returns the first result and sends nothing again.
            public var idempotencyKey: String?
            /// `true`: only the recipient's sealed devices are targeted, and no server-readable copy is ever kept.
            public var sealedOnly: Bool?
            /// `true`: the recipient's first successful fetch (any device, any way) erases every copy.
            public var readOnce: Bool?
            public init(
                recipientId: String, payload: String, ttlSeconds: Int? = nil, idempotencyKey: String? = nil,
                sealedOnly: Bool? = nil, readOnce: Bool? = nil
            ) {
                self.recipientId = recipientId
                self.payload = payload
                self.ttlSeconds = ttlSeconds
                self.idempotencyKey = idempotencyKey
                self.sealedOnly = sealedOnly
                self.readOnce = readOnce
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            public var notificationId: String
            public var deliveries: [Delivery]
            public init(notificationId: String, deliveries: [Delivery]) {
                self.notificationId = notificationId
                self.deliveries = deliveries
            }
        }

        /// One device the notification id is being delivered to.
        public struct Delivery: Codable, Sendable, Hashable {
            public var deviceId: String
            public var platform: Platform
            public var status: DeliveryStatus
            public init(deviceId: String, platform: Platform, status: DeliveryStatus) {
                self.deviceId = deviceId
                self.platform = platform
                self.status = status
            }
        }
    }

    /// `push.status {notificationId}` (scope `push:send`, the sending client only) → per-device delivery state.
    public enum Status: RPCMethod {
        public static let name = "push.status"

        public struct Params: Codable, Sendable, Hashable {
            public var notificationId: String
            public init(notificationId: String) { self.notificationId = notificationId }
        }

        public struct Result: Codable, Sendable, Hashable {
            public var notificationId: String
            public var deliveries: [DeliveryState]
            /// The id of the trace `push.send` started (32 hex digits), when push-dispatch traced the send: look
            /// it up in the tracing backend to see the notification's whole journey. Absent when not traced.
            public var traceId: String?
            public init(notificationId: String, deliveries: [DeliveryState], traceId: String? = nil) {
                self.notificationId = notificationId
                self.deliveries = deliveries
                self.traceId = traceId
            }
        }

        /// One delivery with its history.
        public struct DeliveryState: Codable, Sendable, Hashable {
            public var deviceId: String
            public var platform: Platform
            public var status: DeliveryStatus
            public var attempts: Int
            public var lastError: String?
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

    /// `push.notify {notificationId}`: the JSON-RPC notification a device receives on its direct event stream.
    public enum Notify: RPCMethod {
        public static let name = "push.notify"

        public struct Params: Codable, Sendable, Hashable {
            public var notificationId: String
            /// The W3C `traceparent` of the send (when push-dispatch traces): send it back on `store.get` so the
            /// fetch joins the send's trace. Trace context only, nothing else; absent when not traced.
            public var traceparent: String?

            public init(notificationId: String, traceparent: String? = nil) {
                self.notificationId = notificationId
                self.traceparent = traceparent
            }
        }

        public typealias Result = Empty
    }
}
