extension Webhooks {
    /// The type of a webhook event, e.g. `delivery.sent`. An open set: new types are added, never renamed; an endpoint
    /// receives only the types it subscribed to (`webhooks.create` `events`). Encoded as its raw value (the standard
    /// library's `Codable` for string raw values).
    public struct EventType: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        /// The type as it appears on the wire.
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A provider (or the direct channel) accepted a delivery to one device.
        public static let deliverySent = EventType(rawValue: "delivery.sent")
        /// A delivery to one device was given up (`data.error` says why).
        public static let deliveryFailed = EventType(rawValue: "delivery.failed")
        /// A newer send with the same `collapseId` replaced a delivery before it was made (issue 29).
        public static let deliveryCollapsed = EventType(rawValue: "delivery.collapsed")
        /// A provider reported a device gone: it is no longer targeted. Sent to every subscribed endpoint of the
        /// device's app.
        public static let deviceDeactivated = EventType(rawValue: "device.deactivated")
        /// A device fetched the notification for the first time (its receipt).
        public static let notificationFetched = EventType(rawValue: "notification.fetched")
        /// The notification's `ttlSeconds` ran out: it can no longer be fetched.
        public static let notificationExpired = EventType(rawValue: "notification.expired")
        /// A scheduled send (`sendAt`) came due and was sent.
        public static let scheduleSent = EventType(rawValue: "schedule.sent")
        /// Sent by `webhooks.test`, to every endpoint whatever it subscribed to.
        public static let webhookTest = EventType(rawValue: "webhook.test")

        /// The types an endpoint may subscribe to (`webhook.test` is sent on request only).
        public static let subscribable: [EventType] = [
            .deliverySent, .deliveryFailed, .deliveryCollapsed, .deviceDeactivated, .notificationFetched,
            .notificationExpired, .scheduleSent,
        ]

        public var description: String { rawValue }
    }
}
