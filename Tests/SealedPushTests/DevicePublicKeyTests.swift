import Crypto
import Foundation
import SealedPush
import SharedModels
import Testing

@Suite("device public keys: base64url without padding of a 65-byte X9.62 P-256 point")
struct DevicePublicKeyTests {
    static let key = P256.KeyAgreement.PrivateKey().publicKey

    @Test("a valid key round-trips through its wire form")
    func valid() throws {
        let text = Self.key.x963Representation.base64URLEncodedString()
        #expect(try DevicePublicKey(base64URL: text).base64URL == text)
        #expect(try DevicePublicKey(base64URL: text).keyAgreement.x963Representation == Self.key.x963Representation)
    }

    /// Texts that are not a device public key, by what is wrong with them.
    static let refusedInputs: [(String, String)] = [
        ("padded", Self.key.x963Representation.base64URLEncodedString() + "="),
        (
            "standard base64",
            Self.key.x963Representation.base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "-", with: "+") + "/"
        ),
        ("compressed", Self.key.compressedRepresentation.base64URLEncodedString()),
        ("raw 64 bytes", Self.key.rawRepresentation.base64URLEncodedString()),
        ("not on the curve", Data([0x04] + [UInt8](repeating: 1, count: 64)).base64URLEncodedString()),
        ("empty", ""),
        ("oversized", String(repeating: "A", count: 10_000)),
    ]

    @Test(
        "anything else is refused with a reason",
        arguments: Self.refusedInputs)
    func refused(_ name: String, _ text: String) {
        #expect(throws: DevicePublicKeyError.self) { try DevicePublicKey(base64URL: text) }
    }
}
