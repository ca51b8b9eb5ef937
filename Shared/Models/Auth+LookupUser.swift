extension Auth {
    /// `auth.lookupUser {userId | username}` (scope `users:read` or `push:send`) → `{userId, username}`:
    /// whether auth knows a user, and the id behind a username. A user auth does not know is `-32004`.
    public enum LookupUser: RPCMethod {
        public static let name = "auth.lookupUser"

        /// Exactly one of the two.
        public struct Params: Codable, Sendable, Hashable {
            /// The user id to look up; exactly one of `userId` and `username`.
            public var userId: String?
            /// The username to look up; exactly one of `userId` and `username`.
            public var username: String?
            public init(userId: String? = nil, username: String? = nil) {
                self.userId = userId
                self.username = username
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The user's id.
            public var userId: String
            /// The user's username.
            public var username: String
            public init(userId: String, username: String) {
                self.userId = userId
                self.username = username
            }
        }
    }
}
