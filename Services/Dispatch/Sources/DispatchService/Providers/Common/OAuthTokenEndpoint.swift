import AsyncHTTPClient
import Foundation
import NIOCore

/// An OAuth 2.0 token endpoint (RFC 6749 §3.2): a form POST answered by `access_token` + `expires_in`.
struct OAuthTokenEndpoint: Sendable {
    /// The endpoint's URL.
    var url: String
    var client: HTTPClient
    var timeout: Duration

    private struct Grant: Decodable {
        var access_token: String
        var expires_in: Double?
        var token_type: String?
    }

    private struct Refusal: Decodable {
        var error: String?
        var error_description: String?
    }

    /// Lifetime assumed when the endpoint does not say (RFC 6749 makes `expires_in` optional).
    static let defaultLifetime: TimeInterval = 3600

    /// Posts `form` and returns the bearer token it grants.
    func requestToken(form: [(name: String, value: String)]) async throws(OAuthTokenError) -> OAuthAccessToken {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormURLEncoded.encode(form)))
        let response: RemoteProviderHTTP.Response
        do {
            response = try await RemoteProviderHTTP.execute(request, on: client, timeout: timeout)
        } catch {
            throw OAuthTokenError("token endpoint unreachable: \(error)")
        }
        guard (200..<300).contains(response.status) else {
            var reason = "token endpoint answered HTTP \(response.status)"
            if let refusal = try? JSONDecoder().decode(Refusal.self, from: Data(response.body.readableBytesView)),
                let error = refusal.error
            {
                reason += ": \(error)" + (refusal.error_description.map { " (\($0))" } ?? "")
            }
            throw OAuthTokenError(reason)
        }
        guard let grant = try? JSONDecoder().decode(Grant.self, from: Data(response.body.readableBytesView)),
            !grant.access_token.isEmpty
        else {
            throw OAuthTokenError("token endpoint answered without an access_token")
        }
        if let type = grant.token_type, type.lowercased() != "bearer" {
            throw OAuthTokenError("token endpoint granted a '\(type)' token, not a bearer token")
        }
        let lifetime = grant.expires_in ?? Self.defaultLifetime
        guard lifetime > 0, lifetime.isFinite else {
            throw OAuthTokenError("token endpoint granted a token with expires_in \(lifetime)")
        }
        return OAuthAccessToken(value: grant.access_token, lifetime: lifetime)
    }
}
