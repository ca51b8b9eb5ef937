import Foundation

extension Webhooks {
    /// One endpoint as `webhooks.list` shows it (never its secret).
    public struct WebhookInfo: Codable, Sendable, Hashable {
        /// The endpoint's id (`wh_…`).
        public var webhookId: String
        /// Where events are POSTed.
        public var url: String
        /// The event types it receives.
        public var events: [EventType]
        /// The description given at creation.
        public var description: String?
        /// The apps whose events it receives: the creating client's apps.
        public var appIds: [String]
        /// `enabled`, or `disabled` (after `SECUREPUSH_WEBHOOK_DISABLE_AFTER` of failures).
        public var state: String
        /// When it was created.
        public var createdAt: Date
        /// Since when every attempt failed; absent while the last attempt succeeded.
        public var failingSince: Date?
        /// When it was disabled.
        public var disabledAt: Date?
        /// Until when the secret before the last `webhooks.rotateSecret` still signs beside the new one.
        public var previousSecretExpiresAt: Date?

        public init(
            webhookId: String, url: String, events: [EventType], description: String? = nil, appIds: [String],
            state: String, createdAt: Date, failingSince: Date? = nil, disabledAt: Date? = nil,
            previousSecretExpiresAt: Date? = nil
        ) {
            self.webhookId = webhookId
            self.url = url
            self.events = events
            self.description = description
            self.appIds = appIds
            self.state = state
            self.createdAt = createdAt
            self.failingSince = failingSince
            self.disabledAt = disabledAt
            self.previousSecretExpiresAt = previousSecretExpiresAt
        }
    }
}
