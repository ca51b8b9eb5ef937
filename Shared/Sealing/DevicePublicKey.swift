import Crypto
import Foundation
import SharedModels

/// A device's P-256 public key as `devices.register` takes it: base64url without padding of the X9.62 uncompressed
/// point (65 bytes, first byte 0x04). The same key receives sealed payloads (HPKE) and verifies device proofs (ES256).
public struct DevicePublicKey: Sendable, Hashable {
    /// The 65-byte X9.62 uncompressed point.
    public let x963Representation: Data

    /// Parses the wire form; the error's `reason` ends a `-32602` message naming `publicKey`.
    public init(base64URL text: String) throws(DevicePublicKeyError) {
        guard text.utf8.count <= 128, let bytes = Data(strictBase64URL: text) else {
            throw DevicePublicKeyError(reason: "must be base64url without padding")
        }
        try self.init(x963Representation: bytes)
    }

    /// Checks the raw X9.62 form (as stored).
    public init(x963Representation bytes: Data) throws(DevicePublicKeyError) {
        guard bytes.count == 65, bytes.first == 0x04 else {
            throw DevicePublicKeyError(
                reason:
                    "must be an X9.62 uncompressed P-256 point (65 bytes starting with 0x04), got \(bytes.count) bytes")
        }
        guard (try? P256.KeyAgreement.PublicKey(x963Representation: bytes)) != nil else {
            throw DevicePublicKeyError(reason: "is not a point on the P-256 curve")
        }
        x963Representation = bytes
    }

    /// Wraps a key the caller already holds.
    public init(_ key: P256.KeyAgreement.PublicKey) {
        x963Representation = key.x963Representation
    }

    /// The wire form: base64url without padding.
    public var base64URL: String { x963Representation.base64URLEncodedString() }

    /// The key for HPKE sealing.
    public var keyAgreement: P256.KeyAgreement.PublicKey {
        // Validated in every initialiser.
        try! P256.KeyAgreement.PublicKey(x963Representation: x963Representation)
    }

    /// The key for ES256 proof verification.
    public var signing: P256.Signing.PublicKey {
        try! P256.Signing.PublicKey(x963Representation: x963Representation)
    }
}

/// Why a public key was refused.
public struct DevicePublicKeyError: Error, Hashable {
    /// Ends the `-32602` message: `'publicKey' <reason>`.
    public let reason: String
}
