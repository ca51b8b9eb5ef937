import Foundation

extension Webhooks {
    /// The body of every webhook request: `{type, timestamp, data}` (the Standard Webhooks shape). It carries ids,
    /// times, platforms and statuses only: never a payload, never a push token.
    public struct Event: Codable, Sendable, Hashable {
        /// What happened, e.g. `delivery.sent`.
        public var type: EventType
        /// When it happened.
        public var timestamp: Date
        /// The ids and facts of the event; which fields are set depends on `type` (docs/webhooks.md).
        public var data: EventData

        public init(type: EventType, timestamp: Date, data: EventData) {
            self.type = type
            self.timestamp = timestamp
            self.data = data
        }
    }

    /// The facts of an event. Every field is optional: each type sets the ones docs/webhooks.md lists for it.
    public struct EventData: Codable, Sendable, Hashable {
        /// The notification (`push.send`'s `notificationId`).
        public var notificationId: String?
        /// The user the notification was sent to, or who owned the device.
        public var recipientId: String?
        /// The device.
        public var deviceId: String?
        /// The device's platform (`apns`, `fcm`, `wns`, `webpush`, `direct`).
        public var platform: Platform?
        /// The app the notification or device belongs to.
        public var appId: String?
        /// The delivery's status (`sent`, `failed`, `collapsed`).
        public var status: DeliveryStatus?
        /// Attempts made so far (deliveries).
        public var attempts: Int?
        /// Why a delivery failed, as the provider said it (never the payload or a token).
        public var error: String?
        /// When the device fetched the notification (`notification.fetched`).
        public var fetchedAt: Date?
        /// When the notification expired (`notification.expired`).
        public var expiredAt: Date?
        /// When a scheduled send was due (`schedule.sent`).
        public var sendAt: Date?
        /// The endpoint (`webhook.test`).
        public var webhookId: String?

        public init(
            notificationId: String? = nil, recipientId: String? = nil, deviceId: String? = nil,
            platform: Platform? = nil, appId: String? = nil, status: DeliveryStatus? = nil, attempts: Int? = nil,
            error: String? = nil, fetchedAt: Date? = nil, expiredAt: Date? = nil, sendAt: Date? = nil,
            webhookId: String? = nil
        ) {
            self.notificationId = notificationId
            self.recipientId = recipientId
            self.deviceId = deviceId
            self.platform = platform
            self.appId = appId
            self.status = status
            self.attempts = attempts
            self.error = error
            self.fetchedAt = fetchedAt
            self.expiredAt = expiredAt
            self.sendAt = sendAt
            self.webhookId = webhookId
        }
    }
}
