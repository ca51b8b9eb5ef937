import Foundation

/// base64url without padding (RFC 4648 §5, as RFC 7515 uses it), written with a table straight into the `String`:
/// the one encoder behind `Data.base64URLEncodedString()`, audit hashes and pseudonyms, JWT parts and Web Push keys.
/// (Foundation's base64 followed by three string replacements cost several microseconds for a 32-byte digest.)
public enum Base64URL {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// The encoding of `bytes` (a digest, a MAC, a `Data` or an array: read in place, not copied first).
    public static func encode(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { input in
            String(unsafeUninitializedCapacity: (input.count * 4 + 2) / 3) { output in
                alphabet.withUTF8Buffer { alphabet in
                    var written = 0
                    func put(_ value: UInt32) {
                        output[written] = alphabet[Int(value & 63)]
                        written += 1
                    }
                    var index = 0
                    while index + 3 <= input.count {
                        let value =
                            UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                        put(value >> 18)
                        put(value >> 12)
                        put(value >> 6)
                        put(value)
                        index += 3
                    }
                    switch input.count - index {
                    case 1:
                        let value = UInt32(input[index]) << 16
                        put(value >> 18)
                        put(value >> 12)
                    case 2:
                        let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                        put(value >> 18)
                        put(value >> 12)
                        put(value >> 6)
                    default: break
                    }
                    return written
                }
            }
        }
    }
}
