extension Users {
    /// `users.delete {userId?, username?}` → `{erasureId, services}`: erases a person and everything about them in the
    /// three services (account, sessions, devices, notifications and every copy of them, receipts, delivery records,
    /// scheduled sends, idempotency keys) and deletes their audit key, so the audit trail no longer links to them.
    ///
    /// Called by the user themselves (a user token whose `auth_time`, the password sign-in, is at most
    /// `SECUREPUSH_ERASURE_SIGNIN_MAX_AGE` old, else `-32003` with `data {reason: "signInRequired"}`; no params or
    /// their own `userId`), or by an operator's client with scope `users:delete` (exactly one of `userId` and
    /// `username`). Idempotent: a repeated call for an erased user answers the first call's result. A service that
    /// cannot be reached is `-32050` naming it, with `data {erasureId}`; auth finishes the erasure by itself (also
    /// after a restart), and a repeated call answers once it has.
    public enum Delete: RPCMethod {
        public static let name = "users.delete"

        public struct Params: Codable, Sendable, Hashable {
            /// The user to erase; a user token may name only itself (or nothing).
            public var userId: String?
            /// The user to erase, by name (operators only), instead of `userId`.
            public var username: String?
            public init(userId: String? = nil, username: String? = nil) {
                self.userId = userId
                self.username = username
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// Names this erasure in the audit trail and in the answer to a repeated call.
            public var erasureId: String
            /// What each service erased, by kind (`auth`, `notification-store`, `push-dispatch`).
            public var services: [String: [String: Int]]
            public init(erasureId: String, services: [String: [String: Int]]) {
                self.erasureId = erasureId
                self.services = services
            }
        }
    }
}
