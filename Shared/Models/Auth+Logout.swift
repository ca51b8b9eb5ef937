extension Auth {
    /// `auth.logout {refreshToken}` → `{}`; the refresh token's whole family is revoked.
    public enum Logout: RPCMethod {
        public static let name = "auth.logout"
        public typealias Params = Refresh.Params
        public typealias Result = Empty
    }
}
