extension Auth {
    /// `auth.refresh {refreshToken}` → a new token grant; the presented refresh token is spent.
    public enum Refresh: RPCMethod {
        public static let name = "auth.refresh"

        public struct Params: Codable, Sendable, Hashable {
            /// The refresh token of the last grant; it is spent by this call.
            public var refreshToken: String
            public init(refreshToken: String) { self.refreshToken = refreshToken }
        }

        public typealias Result = TokenGrant
    }
}
