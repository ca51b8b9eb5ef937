extension Webhooks {
    /// `webhooks.test {webhookId}` (scope `webhooks:manage`) → `{eventId}`: queues a `webhook.test` event to the
    /// endpoint (delivered like any other, with retries); `eventId` is the `webhook-id` it will carry. A disabled
    /// endpoint is enabled again by a test that reaches it.
    public enum Test: RPCMethod {
        public static let name = "webhooks.test"

        public struct Params: Codable, Sendable, Hashable {
            public var webhookId: String
            public init(webhookId: String) { self.webhookId = webhookId }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The `webhook-id` of the test event (`msg_…`).
            public var eventId: String
            public init(eventId: String) { self.eventId = eventId }
        }
    }
}
