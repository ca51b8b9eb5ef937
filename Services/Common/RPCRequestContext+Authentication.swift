import SharedModels

extension RPCRequestContext {
    /// Verifies the request's bearer token; throws `-32001` when it is missing or invalid.
    public func authenticate(with verifier: AccessTokenVerifier) async throws(RPCError) -> Principal {
        try await verifier.verify(bearerToken)
    }
}
