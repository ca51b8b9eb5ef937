import Foundation
import Hummingbird
import JWTKit
import TestSupport

/// An in-process FCM: Google's OAuth token endpoint (JWT-bearer grant) and the HTTP v1 `messages:send` API.
///
/// It checks what Google checks — the RS256 assertion against the service account's public key, its claims, the
/// bearer token on each send, the project in the path and the exact message shape — and answers a scripted error
/// per registration token. Anything unexpected is answered 400 and recorded in `violations`. It may know several
/// projects' service accounts (one per app, issue 27): a token is good for its own project only, as Google's are.
actor FCMMock {
    /// One scripted answer to `messages:send`.
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var body: String
        var headers: [(String, String)] = []

        /// FCM's error body for `errorCode` (nil: a Google error without an `FcmError` detail).
        static func error(
            _ httpStatus: Int, status: String, errorCode: String?, headers: [(String, String)] = []
        ) -> Answer {
            let details =
                errorCode.map {
                    #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"#
                } ?? ""
            return Answer(
                status: .init(code: httpStatus),
                body:
                    #"{"error":{"code":\#(httpStatus),"message":"scripted \#(status)","status":"\#(status)"\#(details)}}"#,
                headers: headers
            )
        }
    }

    /// A `messages:send` request that passed every check.
    struct Send: Sendable {
        var request: MockRequest
        var registrationToken: String
        /// The notification id, or `nil` for a device-verification challenge.
        var secureId: String?
        /// The device-verification challenge, or `nil` for a notification id.
        var challenge: String?
        var ttl: String
        /// `android.priority`: `high` or `normal`.
        var priority: String
        /// `android.collapse_key`, when the message has one.
        var collapseKey: String?
        /// The project in the path (the token's own).
        var projectID: String
    }

    static let tokenPath = "/oauth2/v4/token"
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    let account: TestServiceAccount
    /// Other projects' accounts the mock also serves.
    let otherAccounts: [TestServiceAccount]
    let now: @Sendable () -> Date
    /// `expires_in` of issued tokens.
    var tokenLifetime = 3600
    /// Where the mock listens (set once the server runs): the assertion's `aud` must be `tokenURL`.
    var baseURL = ""
    var tokenURL: String { baseURL + Self.tokenPath }

    private(set) var issuedTokens: [String] = []
    private(set) var assertionHeaders: [JWTHeader] = []
    private(set) var sends: [Send] = []
    /// Every send request, including refused ones.
    private(set) var sendAttempts: [MockRequest] = []
    private(set) var violations: [String] = []
    /// Each issued token's expiry and project.
    private var validTokens: [String: (expiry: Date, projectID: String)] = [:]
    private var scripts: [String: [Answer]] = [:]
    /// When set, the token endpoint refuses every assertion with this OAuth error.
    private var tokenRefusal: String?
    /// When set, every bearer token is refused (a revoked key).
    private var refuseAllBearers = false

    init(account: TestServiceAccount, otherAccounts: [TestServiceAccount] = [], now: @escaping @Sendable () -> Date) {
        self.account = account
        self.otherAccounts = otherAccounts
        self.now = now
    }

    func setBaseURL(_ url: String) { baseURL = url }
    func setTokenLifetime(_ seconds: Int) { tokenLifetime = seconds }
    func refuseTokens(_ error: String?) { tokenRefusal = error }
    func refuseAllBearerTokens(_ refuse: Bool) { refuseAllBearers = refuse }

    /// Forgets every issued token, as if they had been revoked: the next send with one gets 401.
    func revokeIssuedTokens() { validTokens.removeAll() }

    /// Answers the next sends to `registrationToken` with `answers`, in order; afterwards sends succeed.
    func script(_ registrationToken: String, _ answers: Answer...) {
        scripts[registrationToken, default: []] += answers
    }

    func handle(_ request: MockRequest) async -> Response {
        if request.path == Self.tokenPath { return await token(request) }
        return send(request)
    }

    // MARK: The token endpoint

    private func token(_ request: MockRequest) async -> Response {
        guard request.method == "POST",
            request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true
        else { return refuse("token request must be a form POST, got \(request.method) \(request.headers)") }
        let form = request.form
        guard form.keys.sorted() == ["assertion", "grant_type"],
            form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"]
        else { return refuse("token request form is \(form.keys.sorted())") }
        let keys = JWTKeyCollection()
        for account in [account] + otherAccounts {
            await keys.add(
                rsa: account.publicKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: account.privateKeyID))
        }
        let claims: Claims
        do {
            claims = try await keys.verify(assertion, as: Claims.self)
            assertionHeaders.append(try Self.header(of: assertion))
        } catch {
            return refuse("assertion does not verify with the service account's key: \(error)")
        }
        let issuedAt = Int(now().timeIntervalSince1970)
        guard let account = ([account] + otherAccounts).first(where: { $0.clientEmail == claims.iss }),
            assertionHeaders.last?.kid == account.privateKeyID,
            claims.scope == Self.scope, claims.aud == tokenURL,
            claims.exp - claims.iat == 3600, abs(claims.iat - issuedAt) <= 60
        else { return refuse("assertion claims are wrong: \(claims)") }
        if let tokenRefusal {
            return .mock(.badRequest, body: #"{"error":"\#(tokenRefusal)","error_description":"scripted refusal"}"#)
        }
        let token = "ya29.mock-\(issuedTokens.count + 1)-\(UUID().uuidString.prefix(8))"
        issuedTokens.append(token)
        validTokens[token] = (now().addingTimeInterval(TimeInterval(tokenLifetime)), account.projectID)
        return .mock(
            .ok, body: #"{"access_token":"\#(token)","expires_in":\#(tokenLifetime),"token_type":"Bearer"}"#)
    }

    struct Claims: JWTPayload, CustomStringConvertible {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int

        func verify(using algorithm: some JWTAlgorithm) async throws {}
        var description: String { "iss=\(iss) scope=\(scope) aud=\(aud) iat=\(iat) exp=\(exp)" }
    }

    private static func header(of jwt: String) throws -> JWTHeader {
        var part = String(jwt.split(separator: ".")[0])
        part = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        part += String(repeating: "=", count: (4 - part.count % 4) % 4)
        return try JSONDecoder().decode(JWTHeader.self, from: Data(base64Encoded: part) ?? Data())
    }

    // MARK: messages:send

    private func send(_ request: MockRequest) -> Response {
        sendAttempts.append(request)
        guard
            let projectID = ([account] + otherAccounts).map(\.projectID).first(where: {
                request.path == "/v1/projects/\($0)/messages:send"
            })
        else {
            // What Google answers for an unknown project or path: no FcmError detail.
            return Answer.error(404, status: "NOT_FOUND", errorCode: nil).response
        }
        guard request.method == "POST" else { return refuse("send must be POST, got \(request.method)") }
        guard let authorization = request.headers["authorization"], authorization.hasPrefix("Bearer "),
            let issued = validTokens[String(authorization.dropFirst("Bearer ".count))], now() < issued.expiry,
            !refuseAllBearers
        else {
            return Answer.error(401, status: "UNAUTHENTICATED", errorCode: nil).response
        }
        guard issued.projectID == projectID else {
            // Another project's token: what FCM answers a sender of the wrong project.
            return Answer.error(403, status: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH").response
        }
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/json") == true else {
            return refuse("content-type is \(request.headers["content-type"] ?? "missing")")
        }
        guard let send = Self.parse(request, projectID: projectID) else {
            return refuse("body is not exactly the data-only message: \(String(decoding: request.body, as: UTF8.self))")
        }
        if var answers = scripts[send.registrationToken], !answers.isEmpty {
            let answer = answers.removeFirst()
            scripts[send.registrationToken] = answers
            return answer.response
        }
        sends.append(send)
        return .mock(.ok, body: #"{"name":"projects/\#(projectID)/messages/0:\#(sends.count)"}"#)
    }

    /// The message if the body has exactly `{"message":{"token","data":{"secureId"},"android":{"priority":"high"|"normal",
    /// "ttl":"<n>s","collapse_key"?}}}` (or `"data":{"securepushChallenge"}`): no notification block, no other data, no
    /// other field. A collapse key is a non-empty string (FCM keeps at most four per device).
    private static func parse(_ request: MockRequest, projectID: String) -> Send? {
        guard request.body.count <= 4096,
            let root = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            root.keys.sorted() == ["message"], let message = root["message"] as? [String: Any],
            message.keys.sorted() == ["android", "data", "token"],
            let token = message["token"] as? String, !token.isEmpty,
            let data = message["data"] as? [String: String],
            data.keys.sorted() == ["secureId"] || data.keys.sorted() == ["securepushChallenge", "securepushDeviceId"],
            let android = message["android"] as? [String: Any],
            Set(android.keys).isSubset(of: ["priority", "ttl", "collapse_key"]),
            let priority = android["priority"] as? String, ["high", "normal"].contains(priority),
            let ttl = android["ttl"] as? String, ttl.hasSuffix("s"), Int(ttl.dropLast()).map({ $0 >= 0 }) == true
        else { return nil }
        let collapseKey = android["collapse_key"] as? String
        guard android["collapse_key"] == nil || collapseKey?.isEmpty == false else { return nil }
        return Send(
            request: request, registrationToken: token, secureId: data["secureId"],
            challenge: data["securepushChallenge"], ttl: ttl, priority: priority, collapseKey: collapseKey,
            projectID: projectID)
    }

    private func refuse(_ violation: String) -> Response {
        violations.append(violation)
        return Answer.error(400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT").response
    }
}

extension FCMMock.Answer {
    var response: Response { .mock(status, body: body, headers: headers) }
}

extension FCMMock {
    /// A router sending every request to the mock.
    nonisolated func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.on("**", method: .post) { request, _ in await self.handle(try await MockRequest(request)) }
        router.on("/", method: .post) { request, _ in await self.handle(try await MockRequest(request)) }
        return router
    }
}
