import Crypto
import Foundation
import PrivateFiles
import SealedPush
import SharedModels

/// The device's P-256 key pair for sealed notifications: payloads are sealed to its public key (HPKE), and it signs the
/// device proofs that fetch them without an access token. Kept in a 0600 file beside the credentials.
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

    /// The key kept in `path`, or a new one written there when there is none (directory created 0700, file 0600 from
    /// its creation, never replacing a file: when another process wrote one first, that key is used).
    /// - Throws: ``SecurePushClientError`` when the file holds no usable key, `PrivateFileError` when it cannot be
    ///   written.
    public static func loadOrCreate(path: String) throws -> DeviceKey {
        if let existing = try load(path: path) { return existing }
        let key = DeviceKey()
        let text = key.privateKey.rawRepresentation.base64URLEncodedString() + "\n"
        if try PrivateFile.write(Data(text.utf8), to: path, existing: .keep) { return key }
        guard let existing = try load(path: path) else { throw SecurePushClientError.unreadableDeviceKey(path: path) }
        return existing
    }

    /// The key kept in `path`; `nil` when there is no file.
    private static func load(path: String) throws -> DeviceKey? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let text = String(data: data, encoding: .utf8),
            let raw = Data(strictBase64URL: text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw SecurePushClientError.unreadableDeviceKey(path: path) }
        return try DeviceKey(rawRepresentation: raw)
    }

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
