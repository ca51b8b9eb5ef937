import Crypto
import Foundation
import JWTKit
import ServiceCore
import SharedModels

/// An ES256 (P-256) private key that signs access tokens, with its stable key id.
public struct SigningKey: Sendable {
    /// The private key.
    public let privateKey: ES256PrivateKey
    /// The RFC 7638 JWK thumbprint of the public key: the same key always has the same `kid`.
    public let kid: String
    /// The public half as a JWK, as published by `auth.keys`.
    public let publicJWK: Auth.PublicJWK

    /// Wraps an existing key.
    public init(privateKey: ES256PrivateKey) {
        self.privateKey = privateKey
        // A P-256 key always has coordinates; jwt-kit models them as optional for other key types.
        let parameters = privateKey.parameters ?? (x: "", y: "")
        self.kid = Self.thumbprint(x: parameters.x, y: parameters.y)
        self.publicJWK = Auth.PublicJWK(x: parameters.x, y: parameters.y, kid: kid)
    }

    /// Parses a PEM private key (PKCS#8 `PRIVATE KEY` or SEC1 `EC PRIVATE KEY`) on the P-256 curve.
    public init(pem: String) throws {
        self.init(privateKey: try ES256PrivateKey(pem: pem))
    }

    /// A fresh random key.
    public static func generate() -> SigningKey {
        SigningKey(privateKey: ES256PrivateKey())
    }

    /// The key as PKCS#8 PEM, for persisting a generated key.
    public var pemRepresentation: String { privateKey.pemRepresentation }

    /// RFC 7638 thumbprint of an EC P-256 public key: base64url(SHA-256) of its required members in lexicographic order.
    public static func thumbprint(x: String, y: String) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
    }
}
