import Foundation
import Logging
import SharedModels

/// Holds a service client's access token (from `auth.clientToken`), reusing it until shortly before it expires.
///
/// push-dispatch uses one to call `store.put` with scope `store:write`.
public actor ClientCredentialsTokenProvider {
    private let auth: RPCClient
    private let clientID: String
    private let clientSecret: String
    private let refreshMargin: TimeInterval
    private var cached: (token: String, expiresAt: Date)?
    private var inFlight: Task<String, any Error>?
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - refreshMargin: how long before its expiry a token is replaced.
    ///   - now: the clock expiry is judged by.
    public init(
        auth: RPCClient, clientID: String, clientSecret: String, refreshMargin: TimeInterval = 60,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.auth = auth
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.refreshMargin = refreshMargin
        self.now = now
    }

    /// A valid token; fetches a new one when none is cached or it is about to expire.
    /// Concurrent callers share one fetch. Auth being down surfaces as `-32050`.
    public func token() async throws -> String {
        if let cached, cached.expiresAt.timeIntervalSince(now()) > refreshMargin { return cached.token }
        if let inFlight { return try await inFlight.value }
        let task = Task { [auth, clientID, clientSecret] in
            do {
                return try await auth.call(Auth.ClientToken.self, .init(clientId: clientID, clientSecret: clientSecret))
            } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated {
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
