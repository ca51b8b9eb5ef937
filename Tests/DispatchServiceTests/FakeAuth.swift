import Foundation
import Logging
import ServiceCore
import SharedModels
import Synchronization
import TestSupport
import Testing

/// A stand-in for the auth service serving `auth.keys`, `auth.clientToken` (for one known service client) and
/// `auth.lookupUser` (every user id exists unless a test says which do); any other auth method fails the test loudly.
/// It can be switched "down" (calls fail with `-32050`).
final class FakeAuth: Sendable {
    static let clientID = "push-dispatch"
    static let clientSecret = "dispatch-secret-for-tests"

    private struct State {
        var isUp = true
        var issuedTokens: [String] = []
        var revokedSessions: [String] = []
        var revocationCalls: [Auth.RevokedSessions.Params] = []
        var knownUsers: Set<String>?
        var lookups: [String] = []
    }

    private let signer: TestSigner
    private let state = Mutex(State())

    init(signer: TestSigner) {
        self.signer = signer
    }

    /// Every client token handed out, oldest first.
    var issuedTokens: [String] { state.withLock { $0.issuedTokens } }

    /// Signs a session out: `auth.revokedSessions` lists it from now on.
    func revoke(sessionID: String) {
        state.withLock { $0.revokedSessions.append(sessionID) }
    }

    /// Every `auth.revokedSessions` call, oldest first.
    var revocationCalls: [Auth.RevokedSessions.Params] { state.withLock { $0.revocationCalls } }

    /// Every user id `auth.lookupUser` was asked about, oldest first.
    var lookups: [String] { state.withLock { $0.lookups } }

    /// Makes `auth.lookupUser` know exactly these user ids (by default it knows every id).
    func knowOnly(_ users: Set<String>) {
        state.withLock { $0.knownUsers = users }
    }

    /// Makes calls succeed (`true`) or fail as if auth were unreachable (`false`).
    func setUp(_ isUp: Bool) {
        state.withLock { $0.isUp = isUp }
    }

    /// A client to this fake, as push-dispatch's composition root receives one.
    var client: RPCClient {
        RPCClient(transport: Transport(auth: self), peerName: "auth")
    }

    private var dispatcher: RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Auth.Keys.self) { [signer] _, _ in
            Auth.Keys.Result(keys: [signer.jwk])
        }
        dispatcher.register(Auth.ClientToken.self) { [self] params, _ in
            guard params.clientId == Self.clientID, params.clientSecret == Self.clientSecret else {
                throw RPCError.unauthenticated("wrong client credentials")
            }
            let scopes = [Scope.storeWrite, Scope.sessionsRead, Scope.usersRead]
            let token = try await signer.token(subject: params.clientId, scopes: scopes)
            state.withLock { $0.issuedTokens.append(token) }
            return Auth.ClientToken.Result(accessToken: token, expiresIn: 900, scopes: scopes)
        }
        dispatcher.register(Auth.RevokedSessions.self) { [self] params, context in
            guard let token = context.bearerToken, issuedTokens.contains(token) else {
                throw RPCError.unauthenticated()
            }
            // Every revocation, whatever `since`: the caller must cope with repeats.
            return state.withLock { state in
                state.revocationCalls.append(params)
                return Auth.RevokedSessions.Result(sessionIds: state.revokedSessions, asOf: Date())
            }
        }
        dispatcher.register(Auth.LookupUser.self) { [self] params, context in
            let userID = try #require(params.userId, "push-dispatch looks users up by id")
            return try state.withLock { state in
                guard let token = context.bearerToken, state.issuedTokens.contains(token) else {
                    throw RPCError.unauthenticated("not a token this auth issued")
                }
                state.lookups.append(userID)
                guard state.knownUsers?.contains(userID) ?? true else { throw RPCError.notFound("user") }
                return Auth.LookupUser.Result(userId: userID, username: "user-\(userID)")
            }
        }
        Self.refuse(Auth.Register.self, in: &dispatcher)
        Self.refuse(Auth.Login.self, in: &dispatcher)
        Self.refuse(Auth.Refresh.self, in: &dispatcher)
        Self.refuse(Auth.Logout.self, in: &dispatcher)
        return dispatcher
    }

    private static func refuse<M: RPCMethod>(_ method: M.Type, in dispatcher: inout RPCDispatcher) {
        dispatcher.register(method) { _, _ in
            Issue.record("FakeAuth: push-dispatch must not call \(M.name)")
            throw RPCError.internalError
        }
    }

    private struct Transport: RPCTransport {
        let auth: FakeAuth

        func post(_ body: Data, bearerToken: String?) async throws -> Data? {
            guard auth.state.withLock({ $0.isUp }) else { throw RPCError.unavailable("auth", "connection refused") }
            return await auth.dispatcher.handle(
                body: body, context: RPCRequestContext(bearerToken: bearerToken, logger: .silent))
        }
    }
}

extension Logger {
    /// A logger that drops everything, so expected failures do not clutter test output.
    static let silent = Logger(label: "DispatchServiceTests") { _ in SwiftLogNoOpLogHandler() }
}
