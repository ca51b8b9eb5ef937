import SharedModels

/// A service's JSON-RPC methods, each registered with the access it requires: the bearer token is verified
/// (`-32001`) and the scope checked (`-32003`) before the handler runs, and the handler receives the checked
/// ``Principal``, so no handler can forget the check.
///
/// Params are decoded first (as ``RPCDispatcher/register(_:handler:)`` always does), so malformed params get
/// `-32602` whoever calls.
public struct MethodRegistry: Sendable {
    /// The dispatcher the methods are registered on.
    public private(set) var dispatcher: RPCDispatcher
    private let verifier: AccessTokenVerifier

    /// - Parameters:
    ///   - verifier: verifies bearer tokens locally with auth's keys.
    ///   - maxBatchLength: most calls a batch may hold.
    public init(verifier: AccessTokenVerifier, maxBatchLength: Int = 100) {
        self.dispatcher = RPCDispatcher(maxBatchLength: maxBatchLength)
        self.verifier = verifier
    }

    /// Registers a method callers reach only with a verified token that satisfies `access`.
    public mutating func register<M: RPCMethod>(
        _ method: M.Type,
        requires access: MethodAccess,
        handler: @escaping @Sendable (M.Params, Principal, RPCRequestContext) async throws -> M.Result
    ) {
        let verifier = verifier
        dispatcher.register(method) { params, context in
            let principal = try await context.authenticate(with: verifier)
            try access.check(principal)
            return try await handler(params, principal, context)
        }
    }

    /// Registers how a method registered with ``registerAdmittingItself(_:handler:)`` answers without suspending
    /// (``RPCDispatcher/registerImmediate(_:handler:)``): it admits its callers itself too, and returns `nil` for any
    /// caller it cannot admit at once (e.g. a token not verified before, ``AccessTokenVerifier/cachedPrincipal(for:)``),
    /// which then goes to the async handler.
    public mutating func registerImmediateAdmittingItself<M: RPCMethod>(
        _ method: M.Type,
        handler: @escaping @Sendable (M.Params, RPCRequestContext) throws -> M.Result?
    ) {
        dispatcher.registerImmediate(method, handler: handler)
    }

    /// Registers a method that admits its callers itself: sign-in methods (credentials in the params, rate
    /// limits), published keys, and methods that accept another proof than a bearer token.
    public mutating func registerAdmittingItself<M: RPCMethod>(
        _ method: M.Type,
        handler: @escaping @Sendable (M.Params, RPCRequestContext) async throws -> M.Result
    ) {
        dispatcher.register(method, handler: handler)
    }
}
