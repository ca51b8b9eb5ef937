import ServiceCore
import SharedModels

extension AuthenticationService {
    /// The auth JSON-RPC methods (exactly `MethodCatalog.auth`), each mapped onto the domain.
    public func makeDispatcher(maxBatchLength: Int = 100) -> RPCDispatcher {
        var dispatcher = RPCDispatcher(maxBatchLength: maxBatchLength)
        // auth verifies the client tokens it signed like any peer does, with its own published keys (no network).
        let verifier = AccessTokenVerifier(now: now, logger: logger) { await publicKeys() }
        // The unauthenticated methods each count against their caller's per-minute limit, every call of a batch too.
        dispatcher.register(Auth.Register.self) { params, context in
            try await limiter.admitRequest(method: Auth.Register.name, from: context.clientAddress, at: now())
            let userID = try await register(
                username: params.username, password: params.password, from: context.clientAddress)
            return Auth.Register.Result(userId: userID)
        }
        dispatcher.register(Auth.Login.self) { params, context in
            try await metrics.logins.counting {
                try await limiter.admitRequest(method: Auth.Login.name, from: context.clientAddress, at: now())
                return try await login(
                    username: params.username, password: params.password, from: context.clientAddress)
            }
        }
        dispatcher.register(Auth.Refresh.self) { params, context in
            try await limiter.admitRequest(method: Auth.Refresh.name, from: context.clientAddress, at: now())
            return try await refresh(refreshToken: params.refreshToken)
        }
        dispatcher.register(Auth.Logout.self) { params, _ in
            try await logout(refreshToken: params.refreshToken)
            return Empty()
        }
        dispatcher.register(Auth.ClientToken.self) { params, context in
            try await metrics.clientTokens.counting {
                try await limiter.admitRequest(method: Auth.ClientToken.name, from: context.clientAddress, at: now())
                return try await clientToken(
                    clientId: params.clientId, clientSecret: params.clientSecret, from: context.clientAddress)
            }
        }
        dispatcher.register(Auth.Keys.self) { _, _ in
            Auth.Keys.Result(keys: await publicKeys())
        }
        dispatcher.register(Auth.RevokedSessions.self) { params, context in
            try await revokedSessions(since: params.since, caller: try await context.authenticate(with: verifier))
        }
        dispatcher.register(Auth.LookupUser.self) { params, context in
            try await lookupUser(params, caller: try await context.authenticate(with: verifier))
        }
        return dispatcher
    }
}
