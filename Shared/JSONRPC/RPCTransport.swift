import Foundation

/// Moves one JSON-RPC request body to a server and brings back the response body.
public protocol RPCTransport: Sendable {
    /// Posts `body` with an optional bearer token; `nil` when the server answered with no body (HTTP 204).
    /// Connection failures and timeouts are thrown as `RPCError` with code `-32050`.
    func post(_ body: Data, bearerToken: String?) async throws -> Data?

    /// Posts the body of a call to `method`; `traceparent` is a W3C trace context the caller wants the call to join
    /// (a device echoing the one its notification came with). Tracing transports name their span after `method` and
    /// send the trace context; the default ignores both.
    func post(_ body: Data, bearerToken: String?, method: String, traceparent: String?) async throws -> Data?
}

extension RPCTransport {
    public func post(_ body: Data, bearerToken: String?, method: String, traceparent: String?) async throws -> Data? {
        try await post(body, bearerToken: bearerToken)
    }
}
