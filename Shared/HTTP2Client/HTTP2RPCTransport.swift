import Foundation
import JSONRPC
import NIOCore

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

    public init(client: HTTP2Client, path: String = "/rpc", peerName: String, extraHeaders: [(String, String)] = []) {
        self.client = client
        self.path = path
        self.peerName = peerName
        self.extraHeaders = extraHeaders
    }

    /// Posts `body`. 200 gives the body, 204 gives `nil`; another status gives the body when it is a JSON-RPC
    /// response, else `RPCError.unavailable`. Every client failure becomes `RPCError.unavailable` (`-32050`) naming
    /// only the peer; the underlying error, with the peer's address, goes to the client's debug log.
    public func post(_ body: Data, bearerToken: String?) async throws -> Data? {
        var headers = [("content-type", "application/json"), ("accept", "application/json")]
        if let bearerToken {
            headers.append(("authorization", "Bearer \(bearerToken)"))
        }
        headers += extraHeaders
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
        let data = Data(response.body.readableBytesView)
        switch response.status {
        case 200:
            return data
        case 204:
            return nil
        default:
            if (try? RPCCodec.makeDecoder().decode(RPCResponseEnvelope<JSONValue>.self, from: data)) != nil {
                return data
            }
            throw RPCError.unavailable(peerName, "HTTP \(response.status)")
        }
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
