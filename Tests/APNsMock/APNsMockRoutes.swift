import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import NIOCore
import ServiceCore
import SharedModels
import Synchronization

/// The claims Apple reads from a provider token.
struct APNsMockClaims: JWTPayload {
    var iss: String
    var iat: Int

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The mock's idea of the provider API: it checks what APNs checks, in the order APNs checks it, and answers
/// with Apple's documented status codes and reasons.
struct APNsMockRoutes: Sendable {
    static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
        "pushtotalk", "widgets",
    ]

    /// Every provider key the mock accepts, by key id, with the one topic it may push to (as keys of different teams
    /// at Apple: a key pushes only to its own team's apps).
    let identities: [String: (key: APNsTestKey, topic: String)]
    let keys: JWTKeyCollection
    let state: APNsMockState
    let now: @Sendable () -> Date
    /// Provider tokens whose signature checked out, with their `iat`.
    let verified = VerifiedProviderTokens()

    func register(on router: Router<BasicRequestContext>) {
        router.on("/3/device/:token", method: .post) { request, context in
            try await handle(request, token: context.parameters.get("token") ?? "")
        }
        for method in [HTTPRequest.Method.get, .put, .delete] {
            router.on("/3/device/:token", method: method) { _, _ in respond(.methodNotAllowed, apnsID: nil) }
        }
    }

    private func handle(_ request: Request, token: String) async throws -> Response {
        var headers: [String: String] = [:]
        for field in request.headers {
            headers[field.name.canonicalName] = field.value
        }
        let body = Data((try await request.body.collect(upTo: 1 << 20)).readableBytesView)
        let jwt = headers["authorization"].flatMap { value -> String? in
            let prefix = "bearer "
            guard value.lowercased().hasPrefix(prefix) else { return nil }
            return String(value.dropFirst(prefix.count))
        }
        let answer = await check(token: token, headers: headers, body: body, jwt: jwt)
        state.record(APNsRecordedRequest(deviceToken: token, headers: headers, body: body, jwt: jwt, answer: answer))
        return respond(answer, apnsID: headers["apns-id"] ?? UUID().uuidString.lowercased())
    }

    private func check(token: String, headers: [String: String], body: Data, jwt: String?) async -> APNsMockAnswer {
        let isHex = token.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit }
        guard isHex, token.count >= 64, token.count % 2 == 0 else { return .badDeviceToken }
        guard let jwt else { return .missingProviderToken }
        let topic: String
        switch await verify(jwt) {
        case .refused(let failure): return failure
        case .valid(let keyTopic): topic = keyTopic
        }
        guard let requestTopic = headers["apns-topic"] else { return .missingTopic }
        guard requestTopic == topic else { return .deviceTokenNotForTopic }
        guard let pushType = headers["apns-push-type"], Self.pushTypes.contains(pushType) else {
            return .invalidPushType
        }
        if let priority = headers["apns-priority"] {
            guard ["1", "5", "10"].contains(priority) else { return .badPriority }
            // Apple: background pushes must use priority 5.
            if pushType == "background", priority == "10" { return .badPriority }
        }
        if let id = headers["apns-id"], UUID(uuidString: id) == nil { return .badMessageID }
        // Apple: the collapse identifier must not exceed 64 bytes.
        if let collapse = headers["apns-collapse-id"], collapse.isEmpty || collapse.utf8.count > 64 {
            return .badCollapseID
        }
        if let expiration = headers["apns-expiration"], Int64(expiration) == nil { return .badExpirationDate }
        guard !body.isEmpty else { return .payloadEmpty }
        guard body.count <= 4096 else { return .payloadTooLarge }
        return state.nextAnswer(for: token)
    }

    /// Header `alg` ES256 and `kid` = a key id the mock knows, signature by that key, `iss` = its team id, `iat` < 1 h
    /// old; the key's topic when it checks out.
    private func verify(_ jwt: String) async -> ProviderTokenCheck {
        struct Header: Decodable {
            var alg: String?
            var kid: String?
        }
        // Like APNs, verify a provider token's signature once and then recognise it (it is reused for up to an hour).
        if let (iat, topic) = verified.tokens.withLock({ $0[jwt] }) {
            return now().timeIntervalSince1970 - TimeInterval(iat) > 3600
                ? .refused(.expiredProviderToken) : .valid(topic: topic)
        }
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Data(base64URLEncoded: String(parts[0])),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            header.alg == "ES256", let kid = header.kid, let identity = identities[kid]
        else { return .refused(.invalidProviderToken) }
        guard let claims = try? await keys.verify(jwt, as: APNsMockClaims.self), claims.iss == identity.key.teamID
        else {
            return .refused(.invalidProviderToken)
        }
        verified.tokens.withLock { $0[jwt] = (claims.iat, identity.topic) }
        let age = now().timeIntervalSince1970 - TimeInterval(claims.iat)
        if age > 3600 { return .refused(.expiredProviderToken) }
        return .valid(topic: identity.topic)
    }

    private func respond(_ answer: APNsMockAnswer, apnsID: String?) -> Response {
        var headers = HTTPFields()
        if let apnsID { headers[HTTPField.Name("apns-id")!] = apnsID }
        if let retryAfter = answer.retryAfter { headers[.retryAfter] = retryAfter }
        let body = answer.body
        if !body.isEmpty { headers[.contentType] = "application/json" }
        return Response(
            status: HTTPResponse.Status(code: answer.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}

/// What checking a provider token found: the topic its key may push to, or APNs' refusal.
enum ProviderTokenCheck {
    case valid(topic: String)
    case refused(APNsMockAnswer)
}

/// Provider tokens the mock has already verified, with their `iat`.
final class VerifiedProviderTokens: Sendable {
    let tokens = Mutex<[String: (iat: Int, topic: String)]>([:])
}
