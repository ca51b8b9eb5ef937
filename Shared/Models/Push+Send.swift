import Foundation

extension Push {
    /// `push.send {recipientId, payload, ttlSeconds?, idempotencyKey?, sealedOnly?, readOnce?, appId?, priority?,
    /// collapseId?}` (scope `push:send`) → `{notificationId, deliveries}`. The payload goes to the store; only the id
    /// goes to devices. The same method reaches many users with `recipientIds` instead: ``SendToMany``.
    public enum Send: RPCMethod {
        public static let name = "push.send"

        public struct Params: Codable, Sendable, Hashable {
            /// The recipient's user id (a UUID from auth; `auth.lookupUser` resolves a username).
            public var recipientId: String
            /// The sensitive text: it goes to notification-store only, never to a push service.
            public var payload: String
            /// Seconds until the notification expires (default 7 days).
            public var ttlSeconds: Int?
            /// The same key from the same client returns the first result and sends nothing again; the same key with
            /// other recipients or another payload or options is `-32602` naming `idempotencyKey`.
            public var idempotencyKey: String?
            /// `true`: only the recipient's sealed devices are targeted, and no server-readable copy is ever kept.
            public var sealedOnly: Bool?
            /// `true`: the recipient's first successful fetch (any device, any way) erases every copy.
            public var readOnce: Bool?
            /// The app whose devices are targeted (its credentials push); unset: the deployment's default app. The
            /// client's token must list it (`-32003` otherwise).
            public var appId: String?
            /// How urgently providers deliver the id (default: each provider's default, `normal` for Web Push unless
            /// `SECUREPUSH_WEBPUSH_URGENCY` says otherwise).
            public var priority: Priority?
            /// A newer send with the same id (same client, recipient and app) replaces this one while it is not yet
            /// delivered: 1–32 characters of the base64url alphabet.
            public var collapseId: String?
            /// When to send (ISO 8601, UTC): the notification id is answered now, the recipient's devices are resolved
            /// and pushed when it is due; before then the recipient can neither list nor fetch it, and `push.cancel`
            /// withdraws it. In the past or less than 1 s ahead: sent now. At most `SECUREPUSH_MAX_SCHEDULE` ahead.
            /// The notification expires `ttlSeconds` after it.
            public var sendAt: Date?
            public init(
                recipientId: String, payload: String, ttlSeconds: Int? = nil, idempotencyKey: String? = nil,
                sealedOnly: Bool? = nil, readOnce: Bool? = nil, appId: String? = nil, priority: Priority? = nil,
                collapseId: String? = nil, sendAt: Date? = nil
            ) {
                self.sendAt = sendAt
                self.priority = priority
                self.collapseId = collapseId
                self.appId = appId
                self.recipientId = recipientId
                self.payload = payload
                self.ttlSeconds = ttlSeconds
                self.idempotencyKey = idempotencyKey
                self.sealedOnly = sealedOnly
                self.readOnce = readOnce
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The stored notification's id: the only thing pushed to the devices.
            public var notificationId: String
            /// One entry per targeted device; empty when the recipient has none, and for a scheduled send (its devices
            /// are resolved when it is due: ask `push.status`).
            public var deliveries: [Delivery]
            public init(notificationId: String, deliveries: [Delivery]) {
                self.notificationId = notificationId
                self.deliveries = deliveries
            }
        }

        /// One device the notification id is being delivered to.
        public struct Delivery: Codable, Sendable, Hashable {
            /// The targeted device.
            public var deviceId: String
            /// How the device is reached.
            public var platform: Platform
            /// The delivery's state when `push.send` answered (normally `queued`).
            public var status: DeliveryStatus
            public init(deviceId: String, platform: Platform, status: DeliveryStatus) {
                self.deviceId = deviceId
                self.platform = platform
                self.status = status
            }
        }
    }
}

extension Push.Send.Result: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("deliveries", deliveries) { delivery, writer in delivery.write(to: &writer) }
        writer.member("notificationId", notificationId)
        writer.endObject()
    }
}

extension Push.Send.Delivery: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("deviceId", deviceId)
        writer.member("platform", platform.rawValue)
        writer.member("status", status.rawValue)
        writer.endObject()
    }
}
