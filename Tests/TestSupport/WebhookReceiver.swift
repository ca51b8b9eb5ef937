import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore

/// A webhook receiver for tests: an HTTP/1.1 server on 127.0.0.1 that records every request and answers as scripted
/// (204 unless told otherwise). It checks signatures on its own (HMAC-SHA256 as the Standard Webhooks specification
/// says, written here independently of push-dispatch's signer).
public actor WebhookReceiver {
    /// A request as received.
    public struct Delivery: Sendable {
        public var request: MockRequest
        public var receivedAt: Date
        /// `webhook-id`.
        public var id: String { request.headers["webhook-id"] ?? "" }
        /// The body as JSON.
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
        }
        /// The body's `type`.
        public var type: String { json["type"] as? String ?? "" }
        /// The body's `data`.
        public var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }

        /// The `v1` signatures `webhook-signature` carries.
        public var signatures: [String] {
            (request.headers["webhook-signature"] ?? "").split(separator: " ").compactMap { entry in
                entry.hasPrefix("v1,") ? String(entry.dropFirst(3)) : nil
            }
        }

        /// Whether one of the signatures is `secret`'s over `id.timestamp.body`.
        public func isSigned(with secret: String) -> Bool {
            guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))),
                let timestamp = request.headers["webhook-timestamp"]
            else { return false }
            var signed = Data("\(id).\(timestamp).".utf8)
            signed.append(request.body)
            let expected = Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key)))
                .base64EncodedString()
            return signatures.contains(expected)
        }
    }

    /// Everything received, in order.
    public private(set) var deliveries: [Delivery] = []
    private var answers: [(status: HTTPResponse.Status, delay: Duration)] = []

    public init() {}

    /// The next `count` requests are answered `status`, after `delay`.
    public func answer(_ status: HTTPResponse.Status, times count: Int, after delay: Duration = .zero) {
        answers += Array(repeating: (status, delay), count: count)
    }

    /// Forgets the scripted answers not given yet: every request is answered 204 again.
    public func answerNormally() {
        answers = []
    }

    /// The deliveries whose body has `type`.
    public func deliveries(ofType type: String) -> [Delivery] {
        deliveries.filter { $0.type == type }
    }

    fileprivate func received(_ request: MockRequest) -> (HTTPResponse.Status, Duration) {
        deliveries.append(Delivery(request: request, receivedAt: Date()))
        return answers.isEmpty ? (.noContent, .zero) : answers.removeFirst()
    }

    /// Runs the receiver for the duration of `body`, which gets its URL (`http://127.0.0.1:<port>/hook`).
    public nonisolated func serve<T>(_ body: (String) async throws -> T) async throws -> T {
        let router = Router()
        router.post("hook") { request, _ -> Response in
            let (status, delay) = await self.received(try await MockRequest(request))
            if delay > .zero { try? await Task.sleep(for: delay) }
            return Response(status: status)
        }
        return try await withRunningServer(router: router, server: .http1()) { port, _ in
            try await body("http://127.0.0.1:\(port)/hook")
        }
    }
}
