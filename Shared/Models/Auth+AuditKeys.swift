extension Auth {
    /// `auth.auditKeys {userIds}` (scope `audit:keys`) → `{keys, addressKey}`: the keys the services' audit trails
    /// pseudonymise people's identifiers with (docs/compliance.md). Auth keeps one random key per user (created when
    /// first asked for) and one address key per UTC day; erasing a user deletes theirs, which makes every entry about
    /// them unlinkable.
    public enum AuditKeys: RPCMethod {
        public static let name = "auth.auditKeys"
        /// Most user ids one call may name.
        public static let maxUserIDs = 1_000

        public struct Params: Codable, Sendable, Hashable {
            /// 0 to ``maxUserIDs`` user ids; unknown (or erased) users get no key.
            public var userIds: [String]
            public init(userIds: [String]) { self.userIds = userIds }
        }

        /// One user's key.
        public struct UserKey: Codable, Sendable, Hashable {
            public var userId: String
            /// 32 bytes, base64url.
            public var key: String
            public init(userId: String, key: String) {
                self.userId = userId
                self.key = key
            }
        }

        /// The address key of one UTC day.
        public struct AddressKey: Codable, Sendable, Hashable {
            /// `yyyy-MM-dd`, UTC.
            public var day: String
            /// 32 bytes, base64url.
            public var key: String
            public init(day: String, key: String) {
                self.day = day
                self.key = key
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The keys of the named users auth knows, in no particular order.
            public var keys: [UserKey]
            /// Today's address key.
            public var addressKey: AddressKey
            public init(keys: [UserKey], addressKey: AddressKey) {
                self.keys = keys
                self.addressKey = addressKey
            }
        }
    }
}
