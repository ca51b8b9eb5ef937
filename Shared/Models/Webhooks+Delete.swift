extension Webhooks {
    /// `webhooks.delete {webhookId}` (scope `webhooks:manage`) → `{}`: the endpoint and its waiting events are removed.
    /// Another client's endpoint, or one that does not exist: `-32004`.
    public enum Delete: RPCMethod {
        public static let name = "webhooks.delete"

        public struct Params: Codable, Sendable, Hashable {
            public var webhookId: String
            public init(webhookId: String) { self.webhookId = webhookId }
        }

        public typealias Result = Empty
    }
}
