extension Auth {
    /// `auth.register {username, password}` → `{userId}`.
    public enum Register: RPCMethod {
        public static let name = "auth.register"

        public struct Params: Codable, Sendable, Hashable {
            /// 3–64 characters of `[a-z0-9._-]`.
            public var username: String
            /// 8–72 bytes of UTF-8.
            public var password: String
            public init(username: String, password: String) {
                self.username = username
                self.password = password
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The new user's id (a UUID).
            public var userId: String
            public init(userId: String) { self.userId = userId }
        }
    }
}
