import Foundation

/// A JSON-RPC 2.0 error object; thrown by handlers and clients alike.
///
/// Codes are stable public contract: see `docs/rpc.md`.
public struct RPCError: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The error code.
    public var code: Int
    /// A short, human-readable message.
    public var message: String
    /// Optional structured details.
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "RPCError(\(code)): \(message)" }
}

/// The error codes SecurePush uses, in one place.
public enum RPCErrorCode {
    public static let parseError = -32700
    public static let invalidRequest = -32600
    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    public static let internalError = -32603
    /// Missing, malformed, expired or revoked token, or wrong credentials.
    public static let unauthenticated = -32001
    /// Valid token, but it lacks the scope the method needs.
    public static let forbidden = -32003
    /// The object does not exist, or it is not the caller's.
    public static let notFound = -32004
    /// The request conflicts with existing state (taken username, send in progress).
    public static let conflict = -32009
    /// A read-once notification was already fetched: every copy is erased (`data.readAt` says when).
    public static let gone = -32010
    /// Too many requests; retry later.
    public static let rateLimited = -32029
    /// A service this one depends on is unreachable or timed out.
    public static let unavailable = -32050
}

extension RPCError {
    /// `-32700`: the body is not valid JSON.
    public static let parseError = RPCError(code: RPCErrorCode.parseError, message: "Parse error")
    /// `-32603`: something failed inside the server; details stay in the server log.
    public static let internalError = RPCError(code: RPCErrorCode.internalError, message: "Internal error")

    /// `-32600` with a reason.
    public static func invalidRequest(_ reason: String) -> RPCError {
        RPCError(code: RPCErrorCode.invalidRequest, message: "Invalid Request: \(reason)")
    }

    /// `-32601` naming the method.
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: RPCErrorCode.methodNotFound, message: "Method not found: \(method)")
    }

    /// `-32602` naming the offending field.
    public static func invalidParams(field: String, _ reason: String) -> RPCError {
        RPCError(
            code: RPCErrorCode.invalidParams,
            message: "Invalid params: '\(field)' \(reason)",
            data: .object(["field": .string(field)])
        )
    }

    /// `-32602` that is not about a single field.
    public static func invalidParams(_ reason: String) -> RPCError {
        RPCError(code: RPCErrorCode.invalidParams, message: "Invalid params: \(reason)")
    }

    /// `-32001`.
    public static func unauthenticated(_ reason: String = "missing or invalid token") -> RPCError {
        RPCError(code: RPCErrorCode.unauthenticated, message: "Unauthenticated: \(reason)")
    }

    /// `-32003` naming the scope that was needed.
    public static func forbidden(scope: String) -> RPCError {
        RPCError(
            code: RPCErrorCode.forbidden,
            message: "Forbidden: requires scope '\(scope)'",
            data: .object(["requiredScope": .string(scope)])
        )
    }

    /// `-32004`; the same message whether the object is missing or belongs to someone else.
    public static func notFound(_ what: String) -> RPCError {
        RPCError(code: RPCErrorCode.notFound, message: "Not found: \(what)")
    }

    /// `-32009`.
    public static func conflict(_ reason: String) -> RPCError {
        RPCError(code: RPCErrorCode.conflict, message: "Conflict: \(reason)")
    }

    /// `-32010`: the read-once notification was fetched at `readAt` and erased.
    public static func gone(readAt: Date) -> RPCError {
        RPCError(
            code: RPCErrorCode.gone, message: "Gone: the notification was read once and erased",
            data: .object(["readAt": .string(readAt.formatted(.iso8601))]))
    }

    /// `-32029`.
    public static func rateLimited(retryAfterSeconds: Int? = nil) -> RPCError {
        RPCError(
            code: RPCErrorCode.rateLimited,
            message: "Rate limited",
            data: retryAfterSeconds.map { .object(["retryAfterSeconds": .int(Int64($0))]) }
        )
    }

    /// `-32050` naming the dependency.
    public static func unavailable(_ dependency: String, _ reason: String) -> RPCError {
        RPCError(
            code: RPCErrorCode.unavailable,
            message: "Dependency unavailable: \(dependency): \(reason)",
            data: .object(["dependency": .string(dependency)])
        )
    }
}

/// A domain error that chooses its own JSON-RPC wire form.
public protocol RPCErrorConvertible: Error {
    /// The JSON-RPC error this error is sent as.
    var rpcError: RPCError { get }
}

extension RPCError: RPCErrorConvertible {
    public var rpcError: RPCError { self }
}
