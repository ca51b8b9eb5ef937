import Foundation
import JWTKit
import SharedModels

/// The claims of a SecurePush access token (an ES256 JWT signed by auth, with the key id in its `kid` header).
public struct AccessTokenClaims: JWTPayload, Equatable {
    /// The issuer every SecurePush token carries.
    public static let issuer = "securepush-auth"

    /// The user id, or the client id for service clients.
    public var sub: SubjectClaim
    /// Space-separated scopes (`user` for people; e.g. `push:send` for app backends).
    public var scope: String
    public var exp: ExpirationClaim
    public var iat: IssuedAtClaim
    /// A unique token id.
    public var jti: IDClaim
    public var iss: IssuerClaim
    /// The sign-in session (refresh-token family) a user token was issued in; absent in client tokens. Services that
    /// hold requests open (event streams) end them when `auth.revokedSessions` lists it.
    public var sid: String?
    /// The apps a client token may act for (`["retail-ios"]`); absent in user tokens and in tokens of clients bound
    /// to no app, which act for the deployment's default app only.
    public var apps: [String]?
    /// When the user signed in with their password (OpenID Connect's `auth_time`, seconds since 1970), kept across
    /// refreshes of the session; absent in client tokens. `users.delete` by the user requires a recent one.
    public var authTime: Int?

    enum CodingKeys: String, CodingKey {
        case sub, scope, exp, iat, jti, iss, sid, apps
        case authTime = "auth_time"
    }

    /// - Parameter apps: written as the `apps` claim when not empty; left out of the token otherwise.
    public init(
        subject: String, scopes: [String], issuedAt: Date, expiresAt: Date, tokenID: String, sessionID: String? = nil,
        apps: [String] = [], authTime: Date? = nil
    ) {
        sid = sessionID
        self.authTime = authTime.map { Int($0.timeIntervalSince1970.rounded(.down)) }
        self.apps = apps.isEmpty ? nil : apps
        sub = SubjectClaim(value: subject)
        scope = scopes.joined(separator: " ")
        exp = ExpirationClaim(value: expiresAt)
        iat = IssuedAtClaim(value: issuedAt)
        jti = IDClaim(value: tokenID)
        iss = IssuerClaim(value: Self.issuer)
    }

    /// The scopes as a set.
    public var scopes: Set<String> { Set(scope.split(separator: " ").map(String.init)) }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        guard iss.value == Self.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "unexpected issuer")
        }
    }
}
