import Crypto
import Foundation
import ServiceCore
import SharedModels

/// An APNs provider authentication token: an ES256 JWT with header `alg` and `kid` and claims `iss` (team id)
/// and `iat`, signed with the `.p8` key from the Apple developer account.
struct APNsProviderToken: Sendable, Hashable {
    /// The compact JWT sent as `authorization: bearer <jwt>`.
    var jwt: String
    /// The `iat` claim (whole seconds).
    var issuedAt: Date

    private struct Header: Encodable {
        var alg = "ES256"
        var kid: String
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int
    }

    /// Signs a new token issued at `now` (rounded down to whole seconds, as `iat` is).
    static func sign(keyID: String, teamID: String, key: P256.Signing.PrivateKey, now: Date) throws
        -> APNsProviderToken
    {
        let issuedAt = Int(now.timeIntervalSince1970.rounded(.down))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(Header(kid: keyID)).base64URLEncodedString()
        let claims = try encoder.encode(Claims(iss: teamID, iat: issuedAt)).base64URLEncodedString()
        let signingInput = header + "." + claims
        let signature = try key.signature(for: Data(signingInput.utf8))
        return APNsProviderToken(
            jwt: signingInput + "." + signature.rawRepresentation.base64URLEncodedString(),
            issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt))
        )
    }
}
