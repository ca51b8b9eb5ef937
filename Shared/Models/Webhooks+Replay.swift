import Foundation

extension Webhooks {
    /// `webhooks.replay {webhookId, since}` (scope `webhooks:manage`) → `{events}`: sends again every event kept for the
    /// endpoint since `since` (events are kept `SECUREPUSH_WEBHOOK_RETENTION`), each with its original `webhook-id`;
    /// `events` is how many were queued. `since` further back than the retention: `-32602` naming `since`.
    public enum Replay: RPCMethod {
        public static let name = "webhooks.replay"

        public struct Params: Codable, Sendable, Hashable {
            public var webhookId: String
            /// The oldest event time to send again.
            public var since: Date
            public init(webhookId: String, since: Date) {
                self.webhookId = webhookId
                self.since = since
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// How many events were queued again.
            public var events: Int
            public init(events: Int) { self.events = events }
        }
    }
}
