import Foundation
import SharedModels

/// Who is calling, as proven by a verified access token.
public struct Principal: Sendable, Hashable {
    /// The user id for people, the client id for service clients.
    public var subject: String
    /// The token's scopes.
    public var scopes: Set<String>
    /// When the token expires (`exp`); `nil` for principals not made from a token.
    public var expiresAt: Date?
    /// The sign-in session a user token was issued in (`sid`); `nil` for client tokens.
    public var sessionID: String?
    /// The apps a client token may act for (`apps`); empty when the token names none: the default app only, as
    /// push-dispatch interprets it.
    public var apps: [String]
    /// When the user signed in with their password (`auth_time`); `nil` for client tokens and older user tokens.
    public var authTime: Date?

    public init(
        subject: String, scopes: Set<String>, expiresAt: Date? = nil, sessionID: String? = nil, apps: [String] = [],
        authTime: Date? = nil
    ) {
        self.authTime = authTime
        self.subject = subject
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.sessionID = sessionID
        self.apps = apps
    }

    /// Whether this is a person's (device's) token.
    public var isUser: Bool { scopes.contains(Scope.user) }

    /// Throws `-32003` unless the token carries `scope`.
    public func require(scope: String) throws(RPCError) {
        guard scopes.contains(scope) else { throw RPCError.forbidden(scope: scope) }
    }

    /// Throws `-32003` unless this is a user token; returns the user id.
    public func requireUser() throws(RPCError) -> String {
        try require(scope: Scope.user)
        return subject
    }
}
