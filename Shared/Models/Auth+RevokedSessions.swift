import Foundation

extension Auth {
    /// `auth.revokedSessions {since?}` (scope `sessions:read`: backend services, i.e. push-dispatch) →
    /// `{sessionIds, asOf}`: the sign-in sessions revoked at or after `since` (logout, or a refresh token replayed).
    ///
    /// A session id is a refresh-token family, carried as the `sid` claim of every user access token issued in it.
    /// Services that hold long-lived requests open for a user token (push-dispatch's event streams) poll this and
    /// end what was opened in a revoked session. Pass the previous answer's `asOf` as the next `since`; without
    /// `since` (or with one older than an access token's lifetime) the answer covers one access-token lifetime.
    public enum RevokedSessions: RPCMethod {
        public static let name = "auth.revokedSessions"

        public struct Params: Codable, Sendable, Hashable {
            /// Revocations at or after this time; unset: within the last access-token lifetime.
            public var since: Date?
            public init(since: Date? = nil) { self.since = since }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The revoked sessions' ids (the `sid` claims), each once.
            public var sessionIds: [String]
            /// Auth's time of the answer: the `since` of the next call.
            public var asOf: Date
            public init(sessionIds: [String], asOf: Date) {
                self.sessionIds = sessionIds
                self.asOf = asOf
            }
        }
    }
}
