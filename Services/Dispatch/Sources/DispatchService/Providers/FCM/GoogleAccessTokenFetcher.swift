import Foundation
import JWTKit

/// Gets FCM access tokens with the OAuth 2.0 service-account flow: sign an RS256 assertion with the account's key
/// and exchange it at `token_uri` (grant type `urn:ietf:params:oauth:grant-type:jwt-bearer`).
struct GoogleAccessTokenFetcher: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    let account: FCMServiceAccount
    let key: Insecure.RSA.PrivateKey
    let endpoint: OAuthTokenEndpoint
    let now: @Sendable () -> Date

    /// - Throws: when the account's private key is not a usable RSA key.
    init(account: FCMServiceAccount, endpoint: OAuthTokenEndpoint, now: @escaping @Sendable () -> Date) throws {
        self.account = account
        self.key = try account.signingKey()
        self.endpoint = endpoint
        self.now = now
    }

    /// A fresh access token for the `firebase.messaging` scope.
    func fetch() async throws -> OAuthAccessToken {
        let issuedAt = Int(now().timeIntervalSince1970)
        let claims = GoogleAssertionClaims(
            iss: account.clientEmail,
            scope: GoogleAssertionClaims.firebaseMessagingScope,
            aud: account.tokenURI,
            iat: issuedAt,
            exp: issuedAt + GoogleAssertionClaims.lifetime
        )
        let kid = account.privateKeyID.map { JWKIdentifier(string: $0) }
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        let assertion: String
        do {
            assertion = try await keys.sign(claims, kid: kid)
        } catch {
            throw OAuthTokenError("cannot sign the service-account assertion: \(error)")
        }
        return try await endpoint.requestToken(form: [("grant_type", Self.grantType), ("assertion", assertion)])
    }
}
