import Foundation

/// A typed JSON-RPC client: `try await client.call(Auth.Login.self, params)`.
public struct RPCClient: Sendable {
    /// The transport requests travel on.
    public let transport: any RPCTransport
    /// The name of the peer, used in `-32050` messages.
    public let peerName: String

    public init(transport: any RPCTransport, peerName: String) {
        self.transport = transport
        self.peerName = peerName
    }

    /// Calls `method` and returns its result, or throws the server's `RPCError`.
    /// - Parameter traceparent: a W3C `traceparent` for the call to join (see ``RPCTransport``); `nil` by default.
    public func call<M: RPCMethod>(
        _ method: M.Type, _ params: M.Params, token: String? = nil, traceparent: String? = nil
    ) async throws -> M.Result {
        let request = RPCRequestEnvelope(method: M.name, params: params, id: .string(UUID.random().uuidString))
        let body = try request.directlyEncoded() ?? RPCCodec.makeEncoder().encode(request)
        guard
            let data = try await transport.post(body, bearerToken: token, method: M.name, traceparent: traceparent)
        else {
            throw RPCError.unavailable(peerName, "empty response to a call")
        }
        let response: RPCResponseEnvelope<M.Result>
        do {
            response = try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<M.Result>.self, from: data)
        } catch {
            throw RPCError.unavailable(peerName, "malformed response")
        }
        if let error = response.error { throw error }
        guard let result = response.result else { throw RPCError.unavailable(peerName, "response without result") }
        return result
    }

    /// Sends `method` as a notification: no id, no response.
    public func notify<M: RPCMethod>(_ method: M.Type, _ params: M.Params, token: String? = nil) async throws {
        let request = RPCRequestEnvelope(method: M.name, params: params, id: nil)
        _ = try await transport.post(
            try RPCCodec.makeEncoder().encode(request), bearerToken: token, method: M.name, traceparent: nil)
    }
}
