import Foundation
import JWTKit
import ServiceCore
import SharedModels

/// Signs access tokens the way auth does (ES256, `kid` header, `AccessTokenClaims`), so push-dispatch can be
/// tested with real tokens and without the auth service.
struct TestSigner: Sendable {
    struct MissingKeyParameters: Error {}

    let kid: String
    /// The public key as `auth.keys` would publish it.
    let jwk: Auth.PublicJWK
    private let keys: JWTKeyCollection

    init(kid: String = "dispatch-test-\(UUID().uuidString.prefix(8))") async throws {
        let key = ES256PrivateKey()
        guard let parameters = key.parameters else { throw MissingKeyParameters() }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        self.kid = kid
        self.keys = keys
        self.jwk = Auth.PublicJWK(x: parameters.x, y: parameters.y, kid: kid)
    }

    /// A token for `subject` with `scopes`, valid for `lifetime` seconds from now.
    func token(subject: String, scopes: [String], lifetime: TimeInterval = 900) async throws -> String {
        let now = Date()
        let claims = AccessTokenClaims(
            subject: subject, scopes: scopes, issuedAt: now, expiresAt: now.addingTimeInterval(lifetime),
            tokenID: UUID().uuidString)
        var header = JWTHeader()
        header.kid = kid
        return try await keys.sign(claims, header: header)
    }

    /// A person's (device's) token.
    func userToken(_ userID: String) async throws -> String {
        try await token(subject: userID, scopes: [Scope.user])
    }

    /// An app backend's token with scope `push:send`.
    func senderToken(_ clientID: String = "app-backend") async throws -> String {
        try await token(subject: clientID, scopes: [Scope.pushSend])
    }
}
