import JWTKit

/// The claims of the JWT a service account signs to ask Google for an access token (RFC 7523 JWT bearer grant).
struct GoogleAssertionClaims: JWTPayload {
    /// The scope FCM's HTTP v1 API requires.
    static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The longest assertion lifetime Google accepts.
    static let lifetime = 3600

    /// The service account's e-mail.
    var iss: String
    var scope: String
    /// The token endpoint (`token_uri`).
    var aud: String
    /// Issued at, in whole seconds since 1970.
    var iat: Int
    /// Expiry, in whole seconds since 1970.
    var exp: Int

    /// Only Google checks these claims; signing needs no verification.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
