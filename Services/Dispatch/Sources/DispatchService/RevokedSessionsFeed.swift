import Foundation
import ServiceCore
import SharedModels
import Synchronization

/// Asks auth which sign-in sessions were revoked (`auth.revokedSessions`, with push-dispatch's own client token,
/// scope `sessions:read`), and remembers them for `retention`: an access token stays valid after its session is
/// revoked, so a stream opened with one later must be refused (and ended) too.
public final class RevokedSessionsFeed: Sendable {
    private struct State {
        var since: Date?
        /// Session id → when we learned of it.
        var revoked: [String: Date] = [:]
    }

    let auth: RPCClient
    let tokens: ClientCredentialsTokenProvider
    /// How long a revoked session is remembered: at least an access token's lifetime.
    let retention: TimeInterval
    let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// - Parameters:
    ///   - auth: a client to auth.
    ///   - tokens: push-dispatch's client token from `auth.clientToken`.
    ///   - retention: how long a revoked session is remembered (at least `SECUREPUSH_ACCESS_TOKEN_TTL`).
    ///   - now: the clock.
    public init(
        auth: RPCClient, tokens: ClientCredentialsTokenProvider, retention: TimeInterval = 3_600,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.auth = auth
        self.tokens = tokens
        self.retention = retention
        self.now = now
    }

    /// Whether `sessionID` is known to be revoked.
    func isRevoked(_ sessionID: String) -> Bool {
        state.withLock { $0.revoked[sessionID] != nil }
    }

    /// Fetches what was revoked since the previous call (the first call: within one access-token lifetime) and
    /// returns every session revoked within `retention`. A token auth refuses (`-32001`, e.g. after a key rotation)
    /// is fetched again and the call retried once.
    func refresh() async throws -> Set<String> {
        let params = Auth.RevokedSessions.Params(since: state.withLock { $0.since })
        let result: Auth.RevokedSessions.Result
        do {
            result = try await auth.call(Auth.RevokedSessions.self, params, token: try await tokens.token())
        } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated {
            await tokens.invalidate()
            result = try await auth.call(Auth.RevokedSessions.self, params, token: try await tokens.token())
        }
        let learned = now()
        return state.withLock { state in
            state.since = result.asOf
            for sessionID in result.sessionIds where state.revoked[sessionID] == nil {
                state.revoked[sessionID] = learned
            }
            state.revoked = state.revoked.filter { learned.timeIntervalSince($0.value) < retention }
            return Set(state.revoked.keys)
        }
    }
}
