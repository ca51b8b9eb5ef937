import ServiceCore
import SharedModels

extension AuthenticationService {
    /// The auth JSON-RPC methods (exactly `MethodCatalog.auth`), each mapped onto the domain.
    public func makeDispatcher(maxBatchLength: Int = 100) -> RPCDispatcher {
        var dispatcher = RPCDispatcher(maxBatchLength: maxBatchLength)
        // auth verifies the client tokens it signed like any peer does, with its own published keys (no network).
        let verifier = AccessTokenVerifier(now: now, logger: logger) { await publicKeys() }
        dispatcher.register(Auth.Register.self) { params, _ in
            Auth.Register.Result(userId: try await register(username: params.username, password: params.password))
        }
        dispatcher.register(Auth.Login.self) { params, _ in
            try await login(username: params.username, password: params.password)
        }
        dispatcher.register(Auth.Refresh.self) { params, _ in
            try await refresh(refreshToken: params.refreshToken)
        }
        dispatcher.register(Auth.Logout.self) { params, _ in
            try await logout(refreshToken: params.refreshToken)
            return Empty()
        }
        dispatcher.register(Auth.ClientToken.self) { params, _ in
            try await clientToken(clientId: params.clientId, clientSecret: params.clientSecret)
        }
        dispatcher.register(Auth.Keys.self) { _, _ in
            Auth.Keys.Result(keys: await publicKeys())
        }
        dispatcher.register(Auth.LookupUser.self) { params, context in
            try await lookupUser(params, caller: try await context.authenticate(with: verifier))
        }
        return dispatcher
    }
}
