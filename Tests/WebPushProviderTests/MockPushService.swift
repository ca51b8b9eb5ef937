import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import NIOCore
import Synchronization

/// One answer the mock push service gives instead of `201 Created`.
struct MockReply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields = [:]
    var body: String = ""
}

/// What the mock push service saw in one request, after checking it the way a real push service does.
struct ReceivedPush: Sendable {
    var subscription: String
    var ttl: Int?
    var urgency: String?
    /// RFC 8030 §5.4 `Topic`: the push service keeps only the newest message per topic for an offline browser.
    var topic: String?
    /// The `t=` JWT, verified against `k=`.
    var jwt: String?
    /// The `k=` key, base64url.
    var vapidKey: String?
    var claims: MockVAPIDClaims?
    /// The decrypted message.
    var plaintext: Data?
    /// Everything a real push service would have refused; empty for a well-formed request.
    var problems: [String] = []
}

/// The VAPID claims (RFC 8292 §2): all three are required.
struct MockVAPIDClaims: JWTPayload, Equatable {
    var aud: String
    var exp: Int
    var sub: String

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// An RFC 8030 push service: it accepts messages for the subscriptions it issued, checks the headers, the VAPID
/// JWT (ES256, against the `k=` key, which must be the application server key the browser subscribed with) and
/// decrypts the body with the subscription's private key. Errors can be scripted per subscription.
final class MockPushService: Sendable {
    /// The most a push service must accept (RFC 8291 §4); more gets 413.
    static let maxBodyBytes = 4096

    let applicationServerKey: P256.Signing.PublicKey
    let caFile: String
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var origin = ""
        var subscriptions: [String: TestSubscription] = [:]
        var scripts: [String: [MockReply]] = [:]
        var received: [ReceivedPush] = []
    }

    init(applicationServerKey: P256.Signing.PublicKey, caFile: String, now: @escaping @Sendable () -> Date) {
        self.applicationServerKey = applicationServerKey
        self.caFile = caFile
        self.now = now
    }

    /// `https://127.0.0.1:<port>`, once the server listens.
    var origin: String {
        get { state.withLock { $0.origin } }
        set { state.withLock { $0.origin = newValue } }
    }

    /// Every request so far, in arrival order.
    var received: [ReceivedPush] { state.withLock { $0.received } }

    /// A new browser subscription with an endpoint on this service.
    func subscribe(_ name: String) -> TestSubscription {
        state.withLock { state in
            let subscription = TestSubscription(endpoint: "\(state.origin)/push/\(name)")
            state.subscriptions[name] = subscription
            return subscription
        }
    }

    /// The next requests for subscription `name` get these answers, in order; then `201 Created` again.
    func script(_ name: String, _ replies: MockReply...) {
        state.withLock { $0.scripts[name, default: []] += replies }
    }

    /// Handles `POST /push/<name>`.
    func handle(name: String, headers: HTTPFields, body: Data) async -> Response {
        let (subscription, origin) = state.withLock { ($0.subscriptions[name], $0.origin) }
        var push = ReceivedPush(subscription: name)
        guard let subscription else {
            push.problems.append("unknown subscription '\(name)'")
            record(push)
            return Response(status: .notFound)
        }
        check(headers: headers, into: &push)
        await checkVAPID(headers[.authorization], origin: origin, into: &push)

        if body.count > Self.maxBodyBytes {
            push.problems.append("body of \(body.count) bytes is over \(Self.maxBodyBytes)")
            record(push)
            return Response(status: .contentTooLarge)
        }
        do {
            push.plaintext = try subscription.decryptor.decrypt(body)
        } catch {
            push.problems.append("body does not decrypt: \(error)")
        }

        record(push)
        guard push.problems.isEmpty else {
            return Response(
                status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: push.problems.joined(separator: "; "))))
        }
        let scripted = state.withLock { state -> MockReply? in
            guard var replies = state.scripts[name], !replies.isEmpty else { return nil }
            let reply = replies.removeFirst()
            state.scripts[name] = replies
            return reply
        }
        guard let scripted else {
            return Response(status: .created, headers: [.location: "\(origin)/message/\(UUID().uuidString)"])
        }
        return Response(
            status: scripted.status, headers: scripted.headers,
            body: .init(byteBuffer: ByteBuffer(string: scripted.body)))
    }

    private func record(_ push: ReceivedPush) {
        state.withLock { $0.received.append(push) }
    }

    /// RFC 8030 §5: `TTL` is required; RFC 8291 §4: the body is `aes128gcm`.
    private func check(headers: HTTPFields, into push: inout ReceivedPush) {
        if let ttl = headers[.ttl].flatMap(Int.init), ttl >= 0 {
            push.ttl = ttl
        } else {
            push.problems.append("TTL missing or not a non-negative integer: \(headers[.ttl] ?? "nil")")
        }
        if let urgency = headers[.urgency] {
            push.urgency = urgency
            if !["very-low", "low", "normal", "high"].contains(urgency) {
                push.problems.append("Urgency '\(urgency)' is not an RFC 8030 value")
            }
        }
        if let topic = headers[.topic] {
            push.topic = topic
            // RFC 8030 §5.4: at most 32 characters of the URL- and filename-safe base64 alphabet.
            let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            if topic.isEmpty || topic.count > 32 || !topic.allSatisfy(alphabet.contains) {
                push.problems.append("Topic '\(topic)' is not 1-32 base64url characters")
            }
        }
        if headers[.contentEncoding] != "aes128gcm" {
            push.problems.append("Content-Encoding is \(headers[.contentEncoding] ?? "nil"), not aes128gcm")
        }
        if headers[.contentType] != "application/octet-stream" {
            push.problems.append("Content-Type is \(headers[.contentType] ?? "nil")")
        }
    }

    /// RFC 8292: `vapid t=<JWT>, k=<key>`; the JWT verifies with `k`, `aud` is this origin, `exp` within 24 h.
    private func checkVAPID(_ authorization: String?, origin: String, into push: inout ReceivedPush) async {
        guard let authorization, authorization.hasPrefix("vapid ") else {
            push.problems.append("Authorization is not vapid: \(authorization ?? "nil")")
            return
        }
        var parameters: [String: String] = [:]
        for part in authorization.dropFirst("vapid ".count).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { parameters[String(pair[0])] = String(pair[1]) }
        }
        guard let jwt = parameters["t"], let key = parameters["k"] else {
            push.problems.append("Authorization lacks t= or k=: \(authorization)")
            return
        }
        push.jwt = jwt
        push.vapidKey = key
        guard key == applicationServerKey.x963Representation.base64URL else {
            push.problems.append("k= is not the application server key the subscription was made with")
            return
        }
        do {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: try ES256PublicKey(backing: applicationServerKey))
            let claims = try await keys.verify(jwt, as: MockVAPIDClaims.self)
            push.claims = claims
            let now = now().timeIntervalSince1970
            if claims.aud != origin { push.problems.append("aud \(claims.aud) is not \(origin)") }
            if Double(claims.exp) <= now { push.problems.append("exp is in the past") }
            if Double(claims.exp) > now + 86_400 { push.problems.append("exp is more than 24 hours ahead") }
            if !(claims.sub.hasPrefix("mailto:") || claims.sub.hasPrefix("https:")) {
                push.problems.append("sub \(claims.sub) is not mailto: or https:")
            }
        } catch {
            push.problems.append("VAPID JWT does not verify: \(error)")
        }
    }
}

extension HTTPField.Name {
    static let ttl = Self("TTL")!
    static let urgency = Self("Urgency")!
    static let topic = Self("Topic")!
}
