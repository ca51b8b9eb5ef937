extension Webhooks {
    /// `webhooks.create {url, events, description?}` (scope `webhooks:manage`) → `{webhookId, secret}`: registers an
    /// endpoint for this client's events (of its apps). The secret (`whsec_…`, the Standard Webhooks format) is shown
    /// here only. `url` must be `https://` to a public host (`http://` and non-public addresses only for hosts in
    /// `SECUREPUSH_WEBHOOK_ALLOWED_HOSTS`, `http://` only in development); `events` names 1 or more of
    /// ``EventType/subscribable``. Errors: `-32602` naming `url`, `events[i]` or `description`.
    public enum Create: RPCMethod {
        public static let name = "webhooks.create"

        public struct Params: Codable, Sendable, Hashable {
            /// Where events are POSTed (at most 2,048 characters).
            public var url: String
            /// The event types to receive.
            public var events: [EventType]
            /// What the endpoint is for (at most 200 characters).
            public var description: String?
            public init(url: String, events: [EventType], description: String? = nil) {
                self.url = url
                self.events = events
                self.description = description
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The endpoint's id (`wh_…`).
            public var webhookId: String
            /// The signing secret, `whsec_<base64>`: keep it; it is not shown again.
            public var secret: String
            public init(webhookId: String, secret: String) {
                self.webhookId = webhookId
                self.secret = secret
            }
        }
    }
}
