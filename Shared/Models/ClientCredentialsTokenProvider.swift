import Foundation
import JSONRPC

/// Holds a service client's access token (from `auth.clientToken`), reusing it until shortly before it expires;
/// concurrent callers share one fetch, so a burst of calls costs auth one bcrypt check, not one each.
///
/// push-dispatch uses one for `store.put`, `auth.lookupUser` and `auth.revokedSessions`; an app backend's
/// `SecurePushBackend` uses one for `push.send`.
public actor ClientCredentialsTokenProvider {
    private let auth: RPCClient
    private let clientID: String
    private let clientSecret: String
    private let refreshMargin: TimeInterval
    private var cached: (token: String, expiresAt: Date)?
    private var inFlight: Task<String, any Error>?
    private let now: @Sendable () -> Date
    private let refusalIsUnavailable: Bool

    /// - Parameters:
    ///   - refreshMargin: how long before its expiry a token is replaced.
    ///   - refusalIsUnavailable: report auth refusing the credentials as `-32050` (a service's own client: a
    ///     dependency problem for its callers) rather than as auth's `-32001` (an app backend's wrong secret).
    ///   - now: the clock expiry is judged by.
    public init(
        auth: RPCClient, clientID: String, clientSecret: String, refreshMargin: TimeInterval = 60,
        refusalIsUnavailable: Bool = true, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.auth = auth
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.refreshMargin = refreshMargin
        self.refusalIsUnavailable = refusalIsUnavailable
        self.now = now
    }

    /// A valid token; fetches a new one when none is cached or it is about to expire.
    /// Concurrent callers share one fetch. Auth being down surfaces as `-32050`.
    public func token() async throws -> String {
        if let cached, cached.expiresAt.timeIntervalSince(now()) > refreshMargin { return cached.token }
        if let inFlight { return try await inFlight.value }
        let task = Task { [auth, clientID, clientSecret, refusalIsUnavailable] in
            do {
                return try await auth.call(Auth.ClientToken.self, .init(clientId: clientID, clientSecret: clientSecret))
            } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated && refusalIsUnavailable {
                // Our own credentials were refused: a dependency problem for our callers, not theirs.
                throw RPCError.unavailable("auth", "service client '\(clientID)' was refused")
            }
        }
        let tokenTask = Task { try await task.value.accessToken }
        inFlight = tokenTask
        defer { inFlight = nil }
        let grant = try await task.value
        cached = (grant.accessToken, now().addingTimeInterval(TimeInterval(grant.expiresIn)))
        return grant.accessToken
    }

    /// Forgets the cached token (after a peer said it is no longer valid).
    public func invalidate() {
        cached = nil
    }
}
