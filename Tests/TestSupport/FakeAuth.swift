import Crypto
import Foundation
import Logging
import ServiceCore
import SharedModels
import Synchronization

/// A stand-in for the auth service, for the store's and push-dispatch's tests. It serves `auth.keys` (the signer's
/// key) to both; to push-dispatch also `auth.clientToken` (for one known service client), `auth.revokedSessions` and
/// `auth.lookupUser` (every user id exists unless a test says which do). Any other call is reported through
/// `unexpectedCall` (tests pass `Issue.record`), so a test fails loudly. It can be switched "down": calls then fail
/// as a real unreachable peer's would (`-32050`).
public final class FakeAuth: Sendable {
    /// Which service the fake stands in for: what it serves depends on it.
    public enum Caller: String, Sendable {
        case store = "the store"
        case dispatch = "push-dispatch"
    }

    /// The service client push-dispatch signs in as.
    public static let clientID = "push-dispatch"
    /// Its secret.
    public static let clientSecret = "dispatch-secret-for-tests"

    private struct State {
        var isUp: Bool
        var requestCount = 0
        var issuedTokens: [String] = []
        var revokedSessions: [String] = []
        var revocationCalls: [Auth.RevokedSessions.Params] = []
        var knownUsers: Set<String>?
        var lookups: [String] = []
    }

    private let signer: TestSigner
    private let caller: Caller
    private let unexpectedCall: @Sendable (String) -> Void
    private let state: Mutex<State>

    /// - Parameters:
    ///   - signer: whose key `auth.keys` publishes and who signs client tokens.
    ///   - caller: the service under test.
    ///   - isUp: whether calls succeed at first.
    ///   - unexpectedCall: called with a description of any call the fake does not serve for `caller`.
    public init(
        signer: TestSigner, for caller: Caller, isUp: Bool = true,
        unexpectedCall: @escaping @Sendable (String) -> Void
    ) {
        self.signer = signer
        self.caller = caller
        self.unexpectedCall = unexpectedCall
        state = Mutex(State(isUp: isUp))
    }

    /// How many calls reached this fake (up or down).
    public var requestCount: Int { state.withLock { $0.requestCount } }

    /// Every client token handed out, oldest first.
    public var issuedTokens: [String] { state.withLock { $0.issuedTokens } }

    /// Every `auth.revokedSessions` call, oldest first.
    public var revocationCalls: [Auth.RevokedSessions.Params] { state.withLock { $0.revocationCalls } }

    /// Every user id `auth.lookupUser` was asked about, oldest first.
    public var lookups: [String] { state.withLock { $0.lookups } }

    /// Signs a session out: `auth.revokedSessions` lists it from now on.
    public func revoke(sessionID: String) {
        state.withLock { $0.revokedSessions.append(sessionID) }
    }

    /// Makes `auth.lookupUser` know exactly these user ids (by default it knows every id).
    public func knowOnly(_ users: Set<String>) {
        state.withLock { $0.knownUsers = users }
    }

    /// Makes calls succeed (`true`) or fail as if auth were unreachable (`false`).
    public func setUp(_ isUp: Bool) {
        state.withLock { $0.isUp = isUp }
    }

    /// A client to this fake, as a composition root receives one.
    public var client: RPCClient {
        RPCClient(transport: Transport(auth: self), peerName: "auth")
    }

    private var dispatcher: RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Auth.Keys.self) { [signer] _, _ in
            Auth.Keys.Result(keys: [signer.jwk])
        }
        refuse(Auth.Register.self, in: &dispatcher)
        refuse(Auth.Login.self, in: &dispatcher)
        refuse(Auth.Refresh.self, in: &dispatcher)
        refuse(Auth.Logout.self, in: &dispatcher)
        if caller == .dispatch {
            registerServiceClientMethods(in: &dispatcher)
        } else {
            refuse(Auth.ClientToken.self, in: &dispatcher)
            refuse(Auth.RevokedSessions.self, in: &dispatcher)
            refuse(Auth.LookupUser.self, in: &dispatcher)
            refuse(Auth.LookupUsers.self, in: &dispatcher)
        }
        return dispatcher
    }

    /// What push-dispatch calls with its service client's token.
    private func registerServiceClientMethods(in dispatcher: inout RPCDispatcher) {
        dispatcher.register(Auth.ClientToken.self) { [self] params, _ in
            guard params.clientId == Self.clientID, params.clientSecret == Self.clientSecret else {
                throw RPCError.unauthenticated("wrong client credentials")
            }
            let scopes = [Scope.storeWrite, Scope.sessionsRead, Scope.usersRead, Scope.auditKeys]
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
            guard let userID = params.userId else {
                unexpectedCall("FakeAuth: push-dispatch looks users up by id")
                throw RPCError.internalError
            }
            return try state.withLock { state in
                guard let token = context.bearerToken, state.issuedTokens.contains(token) else {
                    throw RPCError.unauthenticated("not a token this auth issued")
                }
                state.lookups.append(userID)
                guard state.knownUsers?.contains(userID) ?? true else { throw RPCError.notFound("user") }
                return Auth.LookupUser.Result(userId: userID, username: "user-\(userID)")
            }
        }
        // Each user's audit key is SHA-256 of "audit-key:" + the user id (``auditKey(of:)``), so tests can compute
        // the pseudonyms push-dispatch writes.
        dispatcher.register(Auth.AuditKeys.self) { [self] params, context in
            guard let token = context.bearerToken, issuedTokens.contains(token) else {
                throw RPCError.unauthenticated("not a token this auth issued")
            }
            return Auth.AuditKeys.Result(
                keys: params.userIds.map { .init(userId: $0, key: Self.auditKey(of: $0).base64URLEncodedString()) },
                addressKey: .init(day: "2026-11-27", key: Self.auditKey(of: "").base64URLEncodedString()))
        }
        dispatcher.register(Auth.LookupUsers.self) { [self] params, context in
            try state.withLock { state in
                guard let token = context.bearerToken, state.issuedTokens.contains(token) else {
                    throw RPCError.unauthenticated("not a token this auth issued")
                }
                state.lookups += params.userIds
                let known = params.userIds.filter { state.knownUsers?.contains($0) ?? true }
                return Auth.LookupUsers.Result(
                    users: known.map { Auth.LookupUser.Result(userId: $0, username: "user-\($0)") },
                    unknownUserIds: params.userIds.filter { !known.contains($0) })
            }
        }
    }

    /// The audit key this fake gives `userID` (the address key for `""`).
    public static func auditKey(of userID: String) -> Data {
        Data(SHA256.hash(data: Data("audit-key:\(userID)".utf8)))
    }

    private func refuse<M: RPCMethod>(_ method: M.Type, in dispatcher: inout RPCDispatcher) {
        dispatcher.register(method) { [caller, unexpectedCall] _, _ in
            unexpectedCall("FakeAuth: \(caller.rawValue) must not call \(M.name)")
            throw RPCError.internalError
        }
    }

    private struct Transport: RPCTransport {
        let auth: FakeAuth

        func post(_ body: Data, bearerToken: String?) async throws -> Data? {
            let isUp = auth.state.withLock { state in
                state.requestCount += 1
                return state.isUp
            }
            guard isUp else { throw RPCError.unavailable("auth", "connection refused") }
            return await auth.dispatcher.handle(
                body: body, context: RPCRequestContext(bearerToken: bearerToken, logger: .quiet))
        }
    }
}
