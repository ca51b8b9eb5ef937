import Foundation
import JWTKit
import ServiceCore
import SharedModels

/// Signs ES256 access tokens with the current key and publishes the keys that verify them.
public struct AccessTokenSigner: Sendable {
    /// A key that no longer signs, published until the last token it signed has expired.
    public struct RetiredKey: Sendable, Hashable {
        public var jwk: Auth.PublicJWK
        public var retiredAt: Date
        public init(jwk: Auth.PublicJWK, retiredAt: Date) {
            self.jwk = jwk
            self.retiredAt = retiredAt
        }
    }

    /// The key new tokens are signed with.
    public let currentKey: SigningKey
    /// Older keys whose tokens may still be valid.
    public let retiredKeys: [RetiredKey]
    /// Lifetime of access tokens in seconds (the grants' `expiresIn`).
    public let tokenTTL: Int
    /// `base64url({"alg":"ES256","kid":…,"typ":"JWT"})` and the period after it: every token's first part.
    private let encodedHeader: [UInt8]

    /// - Parameters:
    ///   - currentKey: signs every new token.
    ///   - retiredKeys: published by `publicKeys(at:)` while `retiredAt + tokenTTL` is in the future.
    ///   - tokenTTL: `exp - iat` of every token, in seconds.
    public init(currentKey: SigningKey, retiredKeys: [RetiredKey] = [], tokenTTL: Int) async {
        self.currentKey = currentKey
        self.retiredKeys = retiredKeys
        self.tokenTTL = tokenTTL
        let header = #"{"alg":"ES256","kid":"\#(currentKey.kid)","typ":"JWT"}"#
        self.encodedHeader = Array((Data(header.utf8).base64URLEncodedString() + ".").utf8)
    }

    /// A signed token for `subject` with `scopes`, issued at `now`, carrying `apps` as `apps` when not empty,
    /// `sessionID` as `sid` and `authTime` (the password sign-in) as `auth_time` when given.
    public func sign(
        subject: String, scopes: [String], apps: [String] = [], sessionID: String? = nil, authTime: Date? = nil,
        at now: Date
    ) async throws -> String {
        // Whole seconds: NumericDate allows fractions, but other verifiers handle integers best.
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let claims = AccessTokenClaims(
            subject: subject,
            scopes: scopes,
            issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(TimeInterval(tokenTTL)),
            tokenID: UUID.random().uuidString.lowercased(),
            sessionID: sessionID,
            apps: apps,
            authTime: authTime
        )
        // JWS compact serialisation (RFC 7515): header.payload.signature, the payload encoded as jwt-kit encodes it.
        var token = encodedHeader
        token += try Self.serializer.serialize(claims)
        let signature = try await currentKey.signature(for: token)
        token.append(UInt8(ascii: "."))
        token += Array(Data(signature).base64URLEncodedString().utf8)
        return String(decoding: token, as: UTF8.self)
    }

    private static let serializer = DefaultJWTSerializer()

    /// Every key whose tokens may still be valid at `now`, the current key first (the JWKS of `auth.keys`).
    public func publicKeys(at now: Date) -> [Auth.PublicJWK] {
        let lifetime = TimeInterval(tokenTTL)
        let stillValid = retiredKeys.filter {
            $0.retiredAt.addingTimeInterval(lifetime) > now && $0.jwk.kid != currentKey.kid
        }
        return [currentKey.publicJWK] + stillValid.map(\.jwk)
    }
}
