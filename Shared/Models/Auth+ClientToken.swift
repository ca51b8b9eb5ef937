extension Auth {
    /// `auth.clientToken {clientId, clientSecret}` → an access token for a service client.
    public enum ClientToken: RPCMethod {
        public static let name = "auth.clientToken"

        public struct Params: Codable, Sendable, Hashable {
            /// The service client's id, as `securepush clients create` made it.
            public var clientId: String
            /// The client's secret, shown once at creation.
            public var clientSecret: String
            public init(clientId: String, clientSecret: String) {
                self.clientId = clientId
                self.clientSecret = clientSecret
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// An ES256 JWT carrying the client's scopes; send it as `Authorization: Bearer`.
            public var accessToken: String
            /// Always `"Bearer"`.
            public var tokenType: String
            /// Seconds until `accessToken` expires.
            public var expiresIn: Int
            /// The scopes the token carries, e.g. `["push:send"]`.
            public var scopes: [String]
            public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int, scopes: [String]) {
                self.accessToken = accessToken
                self.tokenType = tokenType
                self.expiresIn = expiresIn
                self.scopes = scopes
            }
        }
    }
}
