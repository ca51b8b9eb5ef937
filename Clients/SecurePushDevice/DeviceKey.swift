import Crypto
import Foundation
import SealedPush
import SharedModels

/// The device's P-256 key pair for sealed notifications: payloads are sealed to its public key (HPKE), and it signs the
/// device proofs that fetch them without an access token. A ``DeviceKeyStore`` keeps it (a 0600 file for the CLI).
public struct DeviceKey: Sendable {
    private let privateKey: P256.KeyAgreement.PrivateKey

    /// A fresh random key.
    public init() {
        privateKey = P256.KeyAgreement.PrivateKey()
    }

    /// The key with this raw 32-byte scalar.
    public init(rawRepresentation: Data) throws {
        privateKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: rawRepresentation)
    }

    /// The raw 32-byte private scalar, for a ``DeviceKeyStore`` to keep.
    public var rawRepresentation: Data { privateKey.rawRepresentation }

    /// The public key as `devices.register` takes it (`publicKey`).
    public var publicKey: String {
        DevicePublicKey(privateKey.publicKey).base64URL
    }

    /// A `SecurePush-Device-Proof` for fetching `notificationId` as `deviceId`, made at `now`.
    public func proof(notificationId: String, deviceId: String, now: Date) throws -> String {
        try DeviceProof.make(
            notificationID: notificationId, deviceID: deviceId, issuedAt: now,
            key: try P256.Signing.PrivateKey(rawRepresentation: privateKey.rawRepresentation))
    }

    /// Opens a copy sealed to this key; throws when it was sealed to another key, notification or device.
    public func open(_ copy: Store.SealedCopy, notificationId: String) throws -> String {
        let plaintext = try SealedPayloadCipher.open(copy, notificationID: notificationId, privateKey: privateKey)
        guard let payload = String(data: plaintext, encoding: .utf8) else { throw SealedPayloadError.malformedCopy }
        return payload
    }
}
