/// Hears how each JSON-RPC call ended (metrics); set on ``RPCDispatcher/observer``.
public protocol RPCCallObserver: Sendable {
    /// One call ended.
    /// - Parameters:
    ///   - method: the registered method's name, ``RPCCallObserver/unknownMethod`` for a name no handler has, or
    ///     ``RPCCallObserver/invalidRequest`` when the body or request object was not valid JSON-RPC.
    ///   - errorCode: the error's code, `nil` on success.
    ///   - duration: how long the call took, handler included.
    func callEnded(method: String, errorCode: Int?, duration: Duration)
}

extension RPCCallObserver {
    /// The one name calls to unregistered methods are counted under (callers choose names; labels must stay bounded).
    public static var unknownMethod: String { RPCDispatcher.unknownMethod }
    /// The name unparsable bodies and invalid request objects are counted under.
    public static var invalidRequest: String { "invalid" }
}

extension RPCCallObserver {
    var unknownMethodName: String { Self.unknownMethod }
    var invalidRequestName: String { Self.invalidRequest }
}
