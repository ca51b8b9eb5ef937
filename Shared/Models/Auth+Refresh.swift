extension Auth {
    /// `auth.refresh {refreshToken}` → a new token grant; the presented refresh token is spent.
    public enum Refresh: RPCMethod {
        public static let name = "auth.refresh"

        public struct Params: Codable, Sendable, Hashable {
            public var refreshToken: String
            public init(refreshToken: String) { self.refreshToken = refreshToken }
        }

        public typealias Result = TokenGrant
    }

    /// `auth.logout {refreshToken}` → `{}`; the refresh token's whole family is revoked.
    public enum Logout: RPCMethod {
        public static let name = "auth.logout"
        public typealias Params = Refresh.Params
        public typealias Result = Empty
    }
}
