import Foundation
import Hummingbird
import TestSupport

/// An in-process WNS: the OAuth token endpoint (client-credentials grant) and channel endpoints
/// (`/w/?token=…`, like `https://*.notify.windows.com/w/?token=…`).
///
/// It checks what WNS checks — client id, secret and scope at the token endpoint; the bearer token, exact raw
/// notification headers and the 5 KB size limit on each channel POST — and answers scripted results per channel
/// token. Anything unexpected is answered 400 and recorded in `violations`.
actor WNSMock {
    /// One scripted answer to a channel POST.
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var headers: [(String, String)] = []

        init(_ status: Int, headers: [(String, String)] = []) {
            self.status = .init(code: status)
            self.headers = headers
        }
    }

    /// A channel POST that passed every check.
    struct Send: Sendable {
        var request: MockRequest
        var channelToken: String
    }

    static let tokenPath = "/accesstoken.srf"
    static let clientID =
        "ms-app://s-1-15-2-2972962901-2322836549-3722629029-1345238579-3987825745-2155616079-650196962"
    static let clientSecret = "Vex8L9WOFZuj95euaLrvSH7XyoDhLJc7+/=&"
    /// The headers every raw notification carries, besides `Authorization`, `X-WNS-TTL` and framing headers.
    static let rawHeaders = [
        "content-type": "application/octet-stream", "x-wns-type": "wns/raw", "x-wns-cache-policy": "cache",
    ]

    let now: @Sendable () -> Date
    var tokenLifetime = 86_400
    private(set) var issuedTokens: [String] = []
    private(set) var tokenRequests: [MockRequest] = []
    private(set) var sends: [Send] = []
    /// Every channel request, including refused ones.
    private(set) var sendAttempts: [MockRequest] = []
    private(set) var violations: [String] = []
    private var validTokens: [String: Date] = [:]
    private var scripts: [String: [Answer]] = [:]
    private var refuseAllBearers = false

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    func setTokenLifetime(_ seconds: Int) { tokenLifetime = seconds }
    func refuseAllBearerTokens(_ refuse: Bool) { refuseAllBearers = refuse }
    /// Forgets every issued token, as if they had expired early: the next send with one gets 401.
    func revokeIssuedTokens() { validTokens.removeAll() }

    /// Answers the next POSTs to channel `token` with `answers`, in order; afterwards they succeed.
    func script(_ token: String, _ answers: Answer...) {
        scripts[token, default: []] += answers
    }

    func handle(_ request: MockRequest) -> Response {
        if request.path == Self.tokenPath { return token(request) }
        return send(request)
    }

    // MARK: The token endpoint

    private func token(_ request: MockRequest) -> Response {
        tokenRequests.append(request)
        guard request.method == "POST",
            request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true
        else { return refuse("token request must be a form POST") }
        let form = request.form
        guard form.keys.sorted() == ["client_id", "client_secret", "grant_type", "scope"],
            form["grant_type"] == "client_credentials", form["scope"] == "notify.windows.com"
        else { return refuse("token request form is \(form)") }
        guard form["client_id"] == Self.clientID, form["client_secret"] == Self.clientSecret else {
            return .mock(.badRequest, body: #"{"error":"invalid_client","error_description":"Invalid client id"}"#)
        }
        let token = "EgAcAQMAAAAALYAAY/c+Huwi3Fv4Ck10UrKNmtxRO6Njk2MgA=\(issuedTokens.count + 1)"
        issuedTokens.append(token)
        validTokens[token] = now().addingTimeInterval(TimeInterval(tokenLifetime))
        return .mock(.ok, body: #"{"token_type":"bearer","access_token":"\#(token)","expires_in":\#(tokenLifetime)}"#)
    }

    // MARK: Channels

    private func send(_ request: MockRequest) -> Response {
        sendAttempts.append(request)
        guard request.path == "/w/", let channelToken = Self.channelToken(request.uri) else {
            return .mock(.notFound)
        }
        guard request.method == "POST" else { return .mock(.methodNotAllowed) }
        guard let authorization = request.headers["authorization"], authorization.hasPrefix("Bearer "),
            let expiry = validTokens[String(authorization.dropFirst("Bearer ".count))], now() < expiry,
            !refuseAllBearers
        else {
            return .mock(.unauthorized, headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\"")])
        }
        for (name, value) in Self.rawHeaders where request.headers[name] != value {
            return refuse("\(name) is \(request.headers[name] ?? "missing"), expected \(value)")
        }
        let extra = request.headers.keys.filter {
            $0.hasPrefix("x-wns-") && Self.rawHeaders[$0] == nil && $0 != "x-wns-ttl" && $0 != "x-wns-priority"
        }
        guard extra.isEmpty else { return refuse("unexpected headers \(extra)") }
        // WNS's priorities: 1 (high) to 4 (very low); absent is WNS's default.
        if let priority = request.headers["x-wns-priority"], !["1", "2", "3", "4"].contains(priority) {
            return refuse("X-WNS-PRIORITY is \(priority)")
        }
        guard let ttl = request.headers["x-wns-ttl"].flatMap({ Int($0) }), ttl >= 1 else {
            return refuse("X-WNS-TTL is \(request.headers["x-wns-ttl"] ?? "missing")")
        }
        guard !request.body.isEmpty else { return refuse("empty raw notification") }
        guard request.body.count <= 5000 else { return .mock(.contentTooLarge) }
        if var answers = scripts[channelToken], !answers.isEmpty {
            let answer = answers.removeFirst()
            scripts[channelToken] = answers
            return .mock(answer.status, headers: answer.headers)
        }
        sends.append(Send(request: request, channelToken: channelToken))
        return .mock(.ok, headers: [("X-WNS-Status", "received"), ("X-WNS-Msg-ID", "1ACD6A5C5CC5B1F6")])
    }

    /// The `token` query parameter, still percent-encoded.
    private static func channelToken(_ uri: String) -> String? {
        guard let query = uri.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("token=") {
            return String(pair.dropFirst("token=".count))
        }
        return nil
    }

    private func refuse(_ violation: String) -> Response {
        violations.append(violation)
        return .mock(.badRequest, headers: [("X-WNS-Error-Description", "mock refused the request")])
    }
}

extension WNSMock {
    /// A router sending every POST to the mock.
    nonisolated func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.on("**", method: .post) { request, _ in await self.handle(try await MockRequest(request)) }
        router.on("**", method: .get) { request, _ in await self.handle(try await MockRequest(request)) }
        return router
    }
}
