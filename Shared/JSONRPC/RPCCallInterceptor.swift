/// Runs around every valid JSON-RPC call (tracing: one server span per call); set on
/// ``RPCDispatcher/interceptor``.
public protocol RPCCallInterceptor: Sendable {
    /// Runs `call` and returns its outcome.
    /// - Parameters:
    ///   - method: the registered method's name, or ``RPCCallObserver/unknownMethod`` for a name no handler has
    ///     (callers choose names: whatever is recorded must stay bounded).
    ///   - call: the call itself; run it exactly once.
    func intercept(method: String, _ call: () async -> RPCResponse.Outcome) async -> RPCResponse.Outcome
}
