import JSONRPC

/// The bounded `outcome` label value metrics give a finished operation: `ok`, or its error's kind.
public enum MetricOutcome {
    /// Every value ``label(for:)`` returns.
    public static let all = [
        "ok", "unauthenticated", "forbidden", "not_found", "invalid", "conflict", "rate_limited", "unavailable",
        "error",
    ]

    /// `ok` when `error` is nil; otherwise `unauthenticated`, `forbidden`, `not_found`, `invalid`, `conflict`,
    /// `rate_limited`, `unavailable` for the JSON-RPC codes of those names, and `error` for anything else.
    public static func label(for error: (any Error)?) -> String {
        guard let error else { return "ok" }
        guard let convertible = error as? any RPCErrorConvertible else { return "error" }
        switch convertible.rpcError.code {
        case RPCErrorCode.unauthenticated: return "unauthenticated"
        case RPCErrorCode.forbidden: return "forbidden"
        case RPCErrorCode.notFound: return "not_found"
        case RPCErrorCode.invalidParams, RPCErrorCode.invalidRequest: return "invalid"
        case RPCErrorCode.conflict: return "conflict"
        case RPCErrorCode.rateLimited: return "rate_limited"
        case RPCErrorCode.unavailable: return "unavailable"
        default: return "error"
        }
    }
}
