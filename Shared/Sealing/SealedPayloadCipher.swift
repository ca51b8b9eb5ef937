import Crypto
import Foundation
import SharedModels

/// The HPKE (RFC 9180) contract of sealed notifications, written once for the store (which seals) and the SDK (which
/// opens): base mode, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM, `info` = `"securepush/v1 " +
/// notificationId + " " + deviceId`, `aad` = `notificationId`, both UTF-8.
public enum SealedPayloadCipher {
    /// KEM 0x0010, KDF 0x0001, AEAD 0x0001.
    public static let ciphersuite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)

    /// The HPKE `info` binding a copy to one notification and one device.
    public static func info(notificationID: String, deviceID: String) -> Data {
        Data("securepush/v1 \(notificationID) \(deviceID)".utf8)
    }

    /// The AEAD associated data: the notification id.
    public static func aad(notificationID: String) -> Data {
        Data(notificationID.utf8)
    }

    /// Seals `payload` to one device's key; the result carries `enc` and `ciphertext` in base64url without padding.
    public static func seal(
        _ payload: Data, to key: DevicePublicKey, notificationID: String, deviceID: String
    ) throws -> Store.SealedCopy {
        var sender = try HPKE.Sender(
            recipientKey: key.keyAgreement, ciphersuite: ciphersuite,
            info: info(notificationID: notificationID, deviceID: deviceID))
        let ciphertext = try sender.seal(payload, authenticating: aad(notificationID: notificationID))
        return Store.SealedCopy(
            deviceId: deviceID, enc: sender.encapsulatedKey.base64URLEncodedString(),
            ciphertext: ciphertext.base64URLEncodedString())
    }

    /// Opens a copy sealed to `privateKey` for `notificationID`; throws when it was not (or was tampered with).
    public static func open<Key: HPKEDiffieHellmanPrivateKey>(
        _ copy: Store.SealedCopy, notificationID: String, privateKey: Key
    ) throws -> Data {
        guard let enc = Data(strictBase64URL: copy.enc), let ciphertext = Data(strictBase64URL: copy.ciphertext) else {
            throw SealedPayloadError.malformedCopy
        }
        return try open(
            enc: enc, ciphertext: ciphertext, info: info(notificationID: notificationID, deviceID: copy.deviceId),
            aad: aad(notificationID: notificationID), privateKey: privateKey)
    }

    /// HPKE base-mode open of one message (sequence 0) with explicit `info` and `aad`.
    public static func open<Key: HPKEDiffieHellmanPrivateKey>(
        enc: Data, ciphertext: Data, info: Data, aad: Data, privateKey: Key
    ) throws -> Data {
        var recipient = try HPKE.Recipient(
            privateKey: privateKey, ciphersuite: ciphersuite, info: info, encapsulatedKey: enc)
        return try recipient.open(ciphertext, authenticating: aad)
    }
}

/// A sealed copy that is not base64url, or does not open with the device's key.
public enum SealedPayloadError: Error, Hashable {
    /// `enc` or `ciphertext` is not base64url without padding.
    case malformedCopy
}
