import Foundation
import JWTKit
import ServiceCore
import SharedModels

/// Signs access tokens the way auth does (ES256, `kid` header, `AccessTokenClaims`), so services that verify tokens
/// can be tested with real tokens and without the auth service.
public struct TestSigner: Sendable {
    struct MissingKeyParameters: Error {}

    /// The key id in every token's header.
    public let kid: String
    /// The public key as `auth.keys` would publish it.
    public let jwk: Auth.PublicJWK
    private let keys: JWTKeyCollection

    public init(kid: String = "test-\(UUID().uuidString.prefix(8))") async throws {
        let key = ES256PrivateKey()
        guard let parameters = key.parameters else { throw MissingKeyParameters() }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        self.kid = kid
        self.keys = keys
        self.jwk = Auth.PublicJWK(x: parameters.x, y: parameters.y, kid: kid)
    }

    /// A token for `subject` with `scopes` (and `sessionID` as `sid`), valid from `issuedAt` for `lifetime` seconds
    /// (negative: already expired),
    /// with `kid` in its header unless `overridingKID` names another.
    public func token(
        subject: String,
        scopes: [String],
        issuedAt: Date = Date(),
        lifetime: TimeInterval = 900,
        sessionID: String? = nil,
        kid overridingKID: String? = nil,
        apps: [String] = []
    ) async throws -> String {
        let claims = AccessTokenClaims(
            subject: subject,
            scopes: scopes,
            issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(lifetime),
            tokenID: UUID().uuidString,
            sessionID: sessionID,
            apps: apps
        )
        var header = JWTHeader()
        header.kid = overridingKID ?? kid
        return try await keys.sign(claims, header: header)
    }

    /// A person's (device's) token.
    public func userToken(_ userID: String) async throws -> String {
        try await token(subject: userID, scopes: [Scope.user])
    }

    /// push-dispatch's service token (scope `store:write`).
    public func writerToken(_ clientID: String = "push-dispatch") async throws -> String {
        try await token(subject: clientID, scopes: [Scope.storeWrite])
    }

    /// An app backend's token (scope `push:send`).
    public func senderToken(_ clientID: String = "app-backend", apps: [String] = []) async throws -> String {
        try await token(subject: clientID, scopes: [Scope.pushSend], apps: apps)
    }
}
