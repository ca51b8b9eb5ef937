extension Auth {
    /// `auth.lookupUsers {userIds}` (scope `users:read` or `push:send`) → `{users, unknownUserIds}`: which of up to
    /// ``maxUserIDs`` user ids auth knows, in one call (push-dispatch checks a `push.send` to many recipients with it).
    public enum LookupUsers: RPCMethod {
        public static let name = "auth.lookupUsers"
        /// Most user ids one call may name.
        public static let maxUserIDs = 10_000

        public struct Params: Codable, Sendable, Hashable {
            /// 1 to ``maxUserIDs`` user ids; a repeated id is answered once.
            public var userIds: [String]
            public init(userIds: [String]) { self.userIds = userIds }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The users auth knows, in the order their ids were first named.
            public var users: [LookupUser.Result]
            /// The ids auth knows no user by, in the order they were first named.
            public var unknownUserIds: [String]
            public init(users: [LookupUser.Result], unknownUserIds: [String]) {
                self.users = users
                self.unknownUserIds = unknownUserIds
            }
        }
    }
}
