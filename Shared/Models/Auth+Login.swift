extension Auth {
    /// `auth.login {username, password}` → a token grant.
    public enum Login: RPCMethod {
        public static let name = "auth.login"

        public struct Params: Codable, Sendable, Hashable {
            /// The account's username, as registered.
            public var username: String
            /// The account's password.
            public var password: String
            public init(username: String, password: String) {
                self.username = username
                self.password = password
            }
        }

        public typealias Result = TokenGrant
    }

    /// The tokens a user receives from `auth.login` and `auth.refresh`.
    public struct TokenGrant: Codable, Sendable, Hashable {
        /// The signed-in user's id (a UUID): what `push.send` takes as `recipientId`.
        public var userId: String
        /// An ES256 JWT to send as `Authorization: Bearer <accessToken>`.
        public var accessToken: String
        /// An opaque token for `auth.refresh`; single use, rotated on every refresh.
        public var refreshToken: String
        /// Always `"Bearer"`.
        public var tokenType: String
        /// Seconds until `accessToken` expires.
        public var expiresIn: Int

        public init(
            userId: String, accessToken: String, refreshToken: String, tokenType: String = "Bearer", expiresIn: Int
        ) {
            self.userId = userId
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.tokenType = tokenType
            self.expiresIn = expiresIn
        }
    }
}
