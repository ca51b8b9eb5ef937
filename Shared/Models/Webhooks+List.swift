extension Webhooks {
    /// `webhooks.list {}` (scope `webhooks:manage`) → `{webhooks}`: this client's endpoints, oldest first.
    public enum List: RPCMethod {
        public static let name = "webhooks.list"

        public typealias Params = Empty

        public struct Result: Codable, Sendable, Hashable {
            public var webhooks: [WebhookInfo]
            public init(webhooks: [WebhookInfo]) { self.webhooks = webhooks }
        }
    }
}
