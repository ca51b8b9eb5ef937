import Crypto
import Foundation
import JWTKit
import NIOPosix
import PKCS11
import ServiceCore
import SharedModels

/// An ES256 (P-256) private key that signs access tokens, with its stable key id: in memory (a PEM file, or
/// generated), or inside a PKCS#11 module (`SECUREPUSH_AUTH_SIGNING_KEY=pkcs11:…`), where it signs and stays.
public struct SigningKey: Sendable {
    /// Where signatures are made.
    enum Signer: Sendable {
        case memory(P256.Signing.PrivateKey)
        case module(PKCS11ECPrivateKey)
    }

    let signer: Signer
    /// The RFC 7638 JWK thumbprint of the public key: the same key always has the same `kid`.
    public let kid: String
    /// The public half as a JWK, as published by `auth.keys`.
    public let publicJWK: Auth.PublicJWK
    /// The public key.
    public let publicKey: P256.Signing.PublicKey
    /// The health check of a key in a module (`hsm` in `GET /health`); `nil` in memory.
    public let moduleProbe: HardwareKeyProbe?

    private init(signer: Signer, publicKey: P256.Signing.PublicKey) {
        self.signer = signer
        self.publicKey = publicKey
        if case .module(let key) = signer { moduleProbe = HardwareKeyProbe { key.probe() } } else { moduleProbe = nil }
        // x963: 0x04 ‖ x ‖ y, 32 bytes each.
        let point = publicKey.x963Representation
        let x = point.dropFirst().prefix(32).base64URLEncodedString()
        let y = point.suffix(32).base64URLEncodedString()
        self.kid = Self.thumbprint(x: x, y: y)
        self.publicJWK = Auth.PublicJWK(x: x, y: y, kid: kid)
    }

    /// Wraps an existing key.
    public init(privateKey: P256.Signing.PrivateKey) {
        self.init(signer: .memory(privateKey), publicKey: privateKey.publicKey)
    }

    /// Wraps a jwt-kit key.
    public init(privateKey: ES256PrivateKey) {
        // jwt-kit's key is swift-crypto's underneath; its PEM is the lossless way across.
        self.init(privateKey: try! P256.Signing.PrivateKey(pemRepresentation: privateKey.pemRepresentation))
    }

    /// A key kept in a PKCS#11 module; throws when its public key is not a valid P-256 point.
    public init(module key: PKCS11ECPrivateKey) throws {
        self.init(signer: .module(key), publicKey: try P256.Signing.PublicKey(x963Representation: key.publicKeyX963))
    }

    /// Parses a PEM private key (PKCS#8 `PRIVATE KEY` or SEC1 `EC PRIVATE KEY`) on the P-256 curve.
    public init(pem: String) throws {
        self.init(privateKey: try ES256PrivateKey(pem: pem))
    }

    /// A fresh random key.
    public static func generate() -> SigningKey {
        SigningKey(privateKey: P256.Signing.PrivateKey())
    }

    /// The key as PKCS#8 PEM, for persisting a generated key; `nil` for a key in a module (it never leaves it).
    public var pemRepresentation: String? {
        guard case .memory(let key) = signer else { return nil }
        return key.pemRepresentation
    }

    /// The token holding the key, when it is in a PKCS#11 module (for health).
    public var moduleToken: PKCS11Token? {
        if case .module(let key) = signer { return key.token }
        return nil
    }

    /// The ES256 signature of `input` (JOSE's `r ‖ s`, 64 bytes): in memory, or in the module on a thread of the
    /// blocking pool (a network HSM answers in milliseconds). A module failing is ``HardwareModuleUnavailable``
    /// (`-32050` naming `hsm`).
    func signature(for input: [UInt8]) async throws -> [UInt8] {
        switch signer {
        case .memory(let key):
            return Array(try key.signature(for: input).rawRepresentation)
        case .module(let key):
            let digest = Array(SHA256.hash(data: input))
            return try await NIOThreadPool.singleton.runIfActive {
                do throws(PKCS11Error) {
                    return try key.sign(digest: digest)
                } catch {
                    throw HardwareModuleUnavailable(error)
                }
            }
        }
    }

    /// RFC 7638 thumbprint of an EC P-256 public key: base64url(SHA-256) of its required members in lexicographic order.
    public static func thumbprint(x: String, y: String) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
    }
}
