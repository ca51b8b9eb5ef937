extension Auth {
    /// `auth.clientToken {clientId, clientSecret}` → an access token for a service client.
    public enum ClientToken: RPCMethod {
        public static let name = "auth.clientToken"

        public struct Params: Codable, Sendable, Hashable {
            public var clientId: String
            public var clientSecret: String
            public init(clientId: String, clientSecret: String) {
                self.clientId = clientId
                self.clientSecret = clientSecret
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            public var accessToken: String
            /// Always `"Bearer"`.
            public var tokenType: String
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
