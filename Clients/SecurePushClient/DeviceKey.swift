import Crypto
import Foundation
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

    /// The key kept in `path`, or a new one written there (mode 0600, created exclusively) when there is none.
    public static func loadOrCreate(path: String) throws -> DeviceKey {
        if let data = FileManager.default.contents(atPath: path) {
            guard let text = String(data: data, encoding: .utf8),
                let raw = Data(strictBase64URL: text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw SecurePushClientError.unreadableDeviceKey(path: path) }
            return try DeviceKey(rawRepresentation: raw)
        }
        let key = DeviceKey()
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        // Created with 0600 before a byte is written, so the private key is never readable by others.
        guard
            FileManager.default.createFile(
                atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw SecurePushClientError.unreadableDeviceKey(path: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: Data((key.privateKey.rawRepresentation.base64URLEncodedString() + "\n").utf8))
        return key
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
