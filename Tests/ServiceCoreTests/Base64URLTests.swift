import Crypto
import Foundation
import SharedModels
import Testing

/// The one base64url encoder (`Base64URL`, behind `Data.base64URLEncodedString()`): audit hashes and pseudonyms, JWT
/// parts, Web Push keys, cursors and opaque tokens are all written by it.
@Suite("base64url")
struct Base64URLTests {
    /// The reference: Foundation's base64, made URL-safe and unpadded, as the encoder before the table did it.
    private static func reference(_ bytes: Data) -> String {
        bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("RFC 4648's test vectors, without padding, and the two characters that differ from base64")
    func vectors() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (text, encoded) in vectors {
            #expect(Base64URL.encode(Array(text.utf8)) == encoded)
            #expect(Data(text.utf8).base64URLEncodedString() == encoded)
        }
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.encode([0xfb, 0xef, 0xbe]) == "----")
        #expect(Base64URL.encode([0xff, 0xff, 0xff]) == "____")
    }

    @Test("a SHA-256 digest and an HMAC encode as Foundation's base64 does, made URL-safe and unpadded")
    func digests() {
        let digest = SHA256.hash(data: Data("audit".utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("id".utf8), using: SymmetricKey(size: .bits256))
        for bytes in [Data(digest), Data(mac)] { #expect(Base64URL.encode(bytes) == Self.reference(bytes)) }
        #expect(Base64URL.encode(digest) == Base64URL.encode(Data(digest)))
    }

    @Test("every length from 0 to 300 bytes, random and all-ones, matches the reference and decodes back")
    func everyLength() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...300 {
            for bytes in [
                Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }),
                Data(repeating: 0xff, count: count),
            ] {
                let encoded = bytes.base64URLEncodedString()
                #expect(encoded == Self.reference(bytes), "\(count) bytes")
                #expect(encoded.utf8.count == (count * 4 + 2) / 3)
                #expect(Data(strictBase64URL: encoded) == bytes)
            }
        }
    }

    @Test("a slice of a larger buffer is encoded from its own start, not the buffer's")
    func slice() {
        let whole = Data((0..<64).map { UInt8($0) })
        let slice = whole.dropFirst(7).prefix(20)
        #expect(slice.base64URLEncodedString() == Self.reference(Data(slice)))
        #expect(Base64URL.encode(Array(whole)[7..<27]) == Self.reference(Data(slice)))
    }
}
