import Foundation
import JSONRPC
import NIOCore
import Tracing

/// JSON-RPC over an ``HTTP2Client``: `POST <path>`, `Content-Type: application/json`,
/// `Authorization: Bearer <token>`.
public struct HTTP2RPCTransport: RPCTransport {
    /// The client the requests travel on.
    public let client: HTTP2Client
    /// The endpoint path, `/rpc` by default.
    public let path: String
    /// The peer's name, used in `-32050` messages.
    public let peerName: String
    /// Headers sent with every request besides the standard ones (e.g. `SecurePush-Device-Proof`).
    public let extraHeaders: [(String, String)]
    /// Traces every call (a client span named by the method, its `traceparent` sent along); `nil` traces nothing.
    public let tracer: (any Tracer)?

    public init(
        client: HTTP2Client, path: String = "/rpc", peerName: String, extraHeaders: [(String, String)] = [],
        tracer: (any Tracer)? = nil
    ) {
        self.client = client
        self.path = path
        self.peerName = peerName
        self.extraHeaders = extraHeaders
        self.tracer = tracer
    }

    /// Posts a call to `method`: in a client span when there is a tracer, with `traceparent` (the caller's own, or
    /// else the span's) in the headers.
    public func post(_ body: Data, bearerToken: String?, method: String, traceparent: String?) async throws -> Data? {
        var headers = self.headers(bearerToken: bearerToken)
        if let traceparent {
            headers.append(("traceparent", traceparent))
            return try await send(body, headers: headers)
        }
        guard let tracer else { return try await send(body, headers: headers) }
        return try await traced(body, headers: headers, method: method, tracer: tracer)
    }

    /// Posts `body`. 200 gives the body, 204 gives `nil`; another status gives the body when it is a JSON-RPC
    /// response, else `RPCError.unavailable`. Every client failure becomes `RPCError.unavailable` (`-32050`) naming
    /// only the peer; the underlying error, with the peer's address, goes to the client's debug log.
    public func post(_ body: Data, bearerToken: String?) async throws -> Data? {
        try await send(body, headers: headers(bearerToken: bearerToken))
    }

    private func headers(bearerToken: String?) -> [(String, String)] {
        var headers = [("content-type", "application/json"), ("accept", "application/json")]
        if let bearerToken {
            headers.append(("authorization", "Bearer \(bearerToken)"))
        }
        return headers + extraHeaders
    }

    private func traced(_ body: Data, headers: [(String, String)], method: String, tracer: some Tracer)
        async throws -> Data?
    {
        try await tracer.withSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .client) { span in
            span.attributes["rpc.system"] = "jsonrpc"
            span.attributes["rpc.method"] = method
            span.attributes["peer.service"] = peerName
            var headers = headers
            tracer.inject(span.context, into: &headers, using: HeaderListInjector())
            let data = try await send(body, headers: headers)
            if let data, let code = Self.errorCode(in: data) {
                span.attributes["rpc.jsonrpc.error_code"] = code
            }
            return data
        }
    }

    /// The error code of a JSON-RPC error response; `nil` for a result (or anything else).
    static func errorCode(in data: Data) -> Int? {
        (try? RPCCodec.makeDecoder().decode(ErrorProbe.self, from: data))?.error?.code
    }

    /// Just enough of a response to read its error code (the result is skipped, not decoded).
    private struct ErrorProbe: Decodable {
        struct Code: Decodable { var code: Int }
        var error: Code?
    }

    private func send(_ body: Data, headers: [(String, String)]) async throws -> Data? {
        let request = HTTP2Request(method: .POST, path: path, headers: headers, body: ByteBuffer(bytes: body))
        let response: HTTP2Response
        do {
            response = try await client.execute(request)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The detail (address, port, library error) is for operators only: callers see the peer's name.
            client.logger.debug("rpc.peer.failed", metadata: ["rpc.peer": "\(peerName)", "error": "\(error)"])
            throw RPCError.unavailable(peerName, Self.reason(for: error))
        }
        return try RPCHTTPAnswer.body(
            status: response.status, data: Data(response.body.readableBytesView), peerName: peerName)
    }

    /// What a `-32050` says about a failure: its kind, never an address or a library's error text.
    static func reason(for error: any Error) -> String {
        guard let error = error as? HTTP2ClientError else { return "not reachable" }
        return switch error {
        case .timeout: "timed out"
        case .goAway: "is shutting down"
        case .tlsFailure: "TLS handshake failed"
        case .responseTooLarge: "response too large"
        default: "not reachable"
        }
    }
}

/// Writes trace headers (`traceparent`, `tracestate`) into an HTTP/2 request's header list, lowercased as HTTP/2 wants.
struct HeaderListInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
        carrier.append((key.lowercased(), value))
    }
}
