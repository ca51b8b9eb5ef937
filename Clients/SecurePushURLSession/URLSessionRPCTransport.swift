import Foundation
import JSONRPC

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// JSON-RPC over `URLSession`: `POST <base>/rpc`, `Content-Type: application/json`, `Authorization: Bearer <token>`.
/// Answers as ``HTTP2RPCTransport`` does: 200 gives the body, 204 nothing, another status the body when it is a
/// JSON-RPC response; a failure to reach the service is `-32050` naming only the service.
struct URLSessionRPCTransport: RPCTransport {
    let session: URLSession
    let url: URL
    let peerName: String
    let extraHeaders: [(String, String)]

    func post(_ body: Data, bearerToken: String?) async throws -> Data? {
        try await post(body, bearerToken: bearerToken, method: "", traceparent: nil)
    }

    func post(_ body: Data, bearerToken: String?, method: String, traceparent: String?) async throws -> Data? {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bearerToken { request.setValue("Bearer \(bearerToken)", forHTTPHeaderField: "Authorization") }
        if let traceparent { request.setValue(traceparent, forHTTPHeaderField: "traceparent") }
        for (name, value) in extraHeaders { request.setValue(value, forHTTPHeaderField: name) }
        let (data, status) = try await send(request)
        return try RPCHTTPAnswer.body(status: status, data: data, peerName: peerName)
    }

    /// The answer's body and status; `-32050` when there is none.
    private func send(_ request: URLRequest) async throws -> (Data, Int) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        let cancelled = (error as? URLError)?.code == .cancelled
                        continuation.resume(
                            throwing: cancelled
                                ? CancellationError() : RPCError.unavailable(peerName, Self.reason(error)))
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), response.statusCode))
                    } else {
                        continuation.resume(throwing: RPCError.unavailable(peerName, "not reachable"))
                    }
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// What a `-32050` says about a failure: its kind, never an address or a library's text.
    static func reason(_ error: any Error) -> String {
        switch (error as? URLError)?.code {
        case .timedOut: "timed out"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            "TLS handshake failed"
        default: "not reachable"
        }
    }
}
