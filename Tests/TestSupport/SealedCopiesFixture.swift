import Foundation

/// `Tests/Fixtures/sealed-copies.json`: copies sealed by the store's code to one device key, shared by every SDK's
/// tests (the Swift SDK's, the device core's and the browser SDK's in Chromium), so all of them open exactly what the
/// store writes. Written by `SECUREPUSH_WRITE_FIXTURES=1 swift test --filter SealedCopiesFixture`.
public struct SealedCopiesFixture: Codable, Sendable {
    public struct Copy: Codable, Sendable {
        public var notificationId: String
        public var deviceId: String
        public var enc: String
        public var ciphertext: String
        /// The payload, as UTF-8 text.
        public var plaintext: String

        public init(notificationId: String, deviceId: String, enc: String, ciphertext: String, plaintext: String) {
            self.notificationId = notificationId
            self.deviceId = deviceId
            self.enc = enc
            self.ciphertext = ciphertext
            self.plaintext = plaintext
        }
    }

    public var description: String
    /// The device's private key: PKCS#8 DER, base64url (what `crypto.subtle.importKey('pkcs8', …)` takes).
    public var devicePrivateKeyPKCS8: String
    /// The device's public key as it registers it: X9.62 uncompressed, base64url.
    public var devicePublicKey: String
    public var copies: [Copy]
    /// A copy sealed to another device's key: must not open with this device's key.
    public var otherDevice: Copy

    public init(
        description: String, devicePrivateKeyPKCS8: String, devicePublicKey: String, copies: [Copy], otherDevice: Copy
    ) {
        self.description = description
        self.devicePrivateKeyPKCS8 = devicePrivateKeyPKCS8
        self.devicePublicKey = devicePublicKey
        self.copies = copies
        self.otherDevice = otherDevice
    }

    /// Where the fixture is.
    public static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sealed-copies.json")

    /// The fixture as committed.
    public static func read() throws -> SealedCopiesFixture {
        try JSONDecoder().decode(SealedCopiesFixture.self, from: Data(contentsOf: url))
    }
}
