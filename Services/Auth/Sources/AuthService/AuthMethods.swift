import ServiceCore
import SharedModels

/// auth's JSON-RPC methods (exactly `MethodCatalog.auth`), each registered with the access it requires and mapped
/// onto ``AuthenticationService``.
public enum AuthMethods {
    /// The dispatcher serving every auth method.
    /// - Parameters:
    ///   - service: the domain logic.
    ///   - maxBatchLength: most calls a batch may hold.
    public static func dispatcher(service: AuthenticationService, maxBatchLength: Int = 100) -> RPCDispatcher {
        // auth verifies the client tokens it signed like any peer does, with its own published keys (no network).
        let verifier = AccessTokenVerifier(now: service.now, logger: service.logger) { await service.publicKeys() }
        var methods = MethodRegistry(verifier: verifier, maxBatchLength: maxBatchLength)
        let limiter = service.limiter
        let now = service.now
        let metrics = service.metrics

        // The sign-in methods admit their callers by the credentials in their params; each call (every call of a
        // batch too) counts against its caller's per-minute limit first.
        methods.registerAdmittingItself(Auth.Register.self) { params, context in
            try await limiter.admitRequest(method: Auth.Register.name, from: context.clientAddress, at: now())
            let userID = try await service.register(
                username: params.username, password: params.password, from: context.clientAddress)
            return Auth.Register.Result(userId: userID)
        }
        methods.registerAdmittingItself(Auth.Login.self) { params, context in
            try await metrics.logins.counting {
                try await limiter.admitRequest(method: Auth.Login.name, from: context.clientAddress, at: now())
                return try await service.login(
                    username: params.username, password: params.password, from: context.clientAddress)
            }
        }
        methods.registerAdmittingItself(Auth.Refresh.self) { params, context in
            try await limiter.admitRequest(method: Auth.Refresh.name, from: context.clientAddress, at: now())
            return try await service.refresh(refreshToken: params.refreshToken, from: context.clientAddress)
        }
        methods.registerAdmittingItself(Auth.Logout.self) { params, context in
            // Each logout takes auth's writer: unlimited, one address could slow every refresh (issue 23).
            try await limiter.admitRequest(method: Auth.Logout.name, from: context.clientAddress, at: now())
            try await service.logout(refreshToken: params.refreshToken, from: context.clientAddress)
            return Empty()
        }
        methods.registerAdmittingItself(Auth.ClientToken.self) { params, context in
            try await metrics.clientTokens.counting {
                try await limiter.admitRequest(method: Auth.ClientToken.name, from: context.clientAddress, at: now())
                return try await service.clientToken(
                    clientId: params.clientId, clientSecret: params.clientSecret, from: context.clientAddress)
            }
        }
        // Public keys are public: peers fetch them to verify tokens locally (rarely: they cache them), counted like
        // every unauthenticated call.
        methods.registerAdmittingItself(Auth.Keys.self) { _, context in
            try await limiter.admitRequest(method: Auth.Keys.name, from: context.clientAddress, at: now())
            return Auth.Keys.Result(keys: await service.publicKeys())
        }

        methods.register(Auth.RevokedSessions.self, requires: .scope(Scope.sessionsRead)) { params, _, _ in
            try await service.revokedSessions(since: params.since)
        }
        // push-dispatch (`users:read`), or an app backend that may send to the user (`push:send`: `push.send`
        // already tells it whether a recipient exists).
        methods.register(Auth.LookupUser.self, requires: MethodAccess(anyOf: [Scope.usersRead, Scope.pushSend])) {
            params, _, _ in
            try await service.lookupUser(params)
        }
        methods.register(Auth.LookupUsers.self, requires: MethodAccess(anyOf: [Scope.usersRead, Scope.pushSend])) {
            params, _, _ in
            try await service.lookupUsers(params)
        }
        // A user erasing themselves (a recent password sign-in), or an operator's automation (`users:delete`).
        methods.register(Users.Delete.self, requires: MethodAccess(anyOf: [Scope.user, Scope.usersDelete])) {
            params, caller, _ in
            try await service.deleteUser(params, by: caller)
        }
        // push-dispatch's and the store's own clients: the keys their audit trails pseudonymise people with.
        methods.register(Auth.AuditKeys.self, requires: .scope(Scope.auditKeys)) { params, client, _ in
            try await service.auditKeys(params, for: client.subject)
        }
        return methods.dispatcher
    }
}
