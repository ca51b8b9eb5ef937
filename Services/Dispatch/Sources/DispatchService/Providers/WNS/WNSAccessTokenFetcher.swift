/// Gets WNS access tokens with the OAuth 2.0 client-credentials grant (client id + secret, scope
/// `notify.windows.com`).
struct WNSAccessTokenFetcher: Sendable {
    let configuration: WNSConfiguration
    let endpoint: OAuthTokenEndpoint

    /// A fresh access token.
    func fetch() async throws -> OAuthAccessToken {
        try await endpoint.requestToken(form: [
            ("grant_type", "client_credentials"),
            ("client_id", configuration.clientID),
            ("client_secret", configuration.clientSecret),
            ("scope", configuration.scope),
        ])
    }
}
