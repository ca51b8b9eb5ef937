import Crypto
import Foundation
import SealedPush
import SharedModels
import TestSupport
import Testing

/// `Tests/Fixtures/sealed-copies.json`: copies sealed by the store's code (``SealedPayloadCipher/seal``) to one
/// device key, shared by every SDK's tests (the browser SDK's, run in Chromium, and the Swift device SDK's) so that
/// all of them open exactly what the store writes. `SECUREPUSH_WRITE_FIXTURES=1 swift test --filter
/// SealedCopiesFixture` writes a new one.
@Suite("sealed copies fixture")
struct SealedCopiesFixtureTests {
    typealias Fixture = SealedCopiesFixture

    static let url = SealedCopiesFixture.url

    static let payloads = [
        "Your statement for November is ready.",
        "Überweisung von 1.250,00 € an Ada Lovelace — Referenz 🔒 4711",
        #"{"title":"Transfer received","body":"CHF 12,500.00 from ACME AG"}"#,
        #"<img src=x onerror="window.__xss=1">"#,
        String(repeating: "0123456789abcdef", count: 640),
    ]

    static func seal(_ text: String, key: DevicePublicKey, notificationID: String, deviceID: String) throws
        -> Fixture.Copy
    {
        let copy = try SealedPayloadCipher.seal(
            Data(text.utf8), to: key, notificationID: notificationID, deviceID: deviceID)
        return Fixture.Copy(
            notificationId: notificationID, deviceId: deviceID, enc: copy.enc, ciphertext: copy.ciphertext,
            plaintext: text)
    }

    static func generate() throws -> Fixture {
        let key = P256.KeyAgreement.PrivateKey()
        let deviceID = UUID().uuidString.lowercased()
        let copies = try payloads.map {
            try seal(
                $0, key: DevicePublicKey(key.publicKey), notificationID: UUID().uuidString.lowercased(),
                deviceID: deviceID)
        }
        let other = P256.KeyAgreement.PrivateKey()
        return Fixture(
            description:
                "Copies sealed by SealedPayloadCipher.seal (the store's sealing) to devicePrivateKeyPKCS8; otherDevice is sealed to another key. Written by Tests/SealedPushTests/SealedCopiesFixtureTests.swift.",
            devicePrivateKeyPKCS8: key.derRepresentation.base64URLEncodedString(),
            devicePublicKey: DevicePublicKey(key.publicKey).base64URL,
            copies: copies,
            otherDevice: try seal(
                "sealed to another device", key: DevicePublicKey(other.publicKey),
                notificationID: UUID().uuidString.lowercased(), deviceID: UUID().uuidString.lowercased()))
    }

    static func load() throws -> Fixture {
        if ProcessInfo.processInfo.environment["SECUREPUSH_WRITE_FIXTURES"] == "1",
            !FileManager.default.fileExists(atPath: url.path)
        {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try (encoder.encode(try generate()) + Data("\n".utf8)).write(to: url)
        }
        return try SealedCopiesFixture.read()
    }

    @Test("every copy opens with the device's key to its plaintext, and the public key is the private key's")
    func opens() throws {
        let fixture = try Self.load()
        let key = try P256.KeyAgreement.PrivateKey(
            derRepresentation: try #require(Data(base64URLEncoded: fixture.devicePrivateKeyPKCS8)))
        #expect(DevicePublicKey(key.publicKey).base64URL == fixture.devicePublicKey)
        #expect(fixture.copies.count == Self.payloads.count)
        for copy in fixture.copies {
            let opened = try SealedPayloadCipher.open(
                Store.SealedCopy(deviceId: copy.deviceId, enc: copy.enc, ciphertext: copy.ciphertext),
                notificationID: copy.notificationId, privateKey: key)
            #expect(String(decoding: opened, as: UTF8.self) == copy.plaintext)
        }
    }

    @Test("another device's copy, a copy moved to another notification and a tampered one do not open")
    func refuses() throws {
        let fixture = try Self.load()
        let key = try P256.KeyAgreement.PrivateKey(
            derRepresentation: try #require(Data(base64URLEncoded: fixture.devicePrivateKeyPKCS8)))
        let other = fixture.otherDevice
        #expect(throws: (any Error).self) {
            try SealedPayloadCipher.open(
                Store.SealedCopy(deviceId: other.deviceId, enc: other.enc, ciphertext: other.ciphertext),
                notificationID: other.notificationId, privateKey: key)
        }
        let copy = fixture.copies[0]
        #expect(throws: (any Error).self) {
            try SealedPayloadCipher.open(
                Store.SealedCopy(deviceId: copy.deviceId, enc: copy.enc, ciphertext: copy.ciphertext),
                notificationID: fixture.copies[1].notificationId, privateKey: key)
        }
        var tampered = try #require(Data(base64URLEncoded: copy.ciphertext))
        tampered[0] ^= 0x01
        #expect(throws: (any Error).self) {
            try SealedPayloadCipher.open(
                Store.SealedCopy(
                    deviceId: copy.deviceId, enc: copy.enc, ciphertext: tampered.base64URLEncodedString()),
                notificationID: copy.notificationId, privateKey: key)
        }
    }
}
