/// `application/x-www-form-urlencoded` bodies, as OAuth 2.0 token requests use them (RFC 6749 appendix B).
enum FormURLEncoded {
    /// Encodes the pairs in order; everything but unreserved characters is percent-encoded, so secrets containing
    /// `+`, `&` or `=` survive.
    static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }

    private static func escape(_ string: String) -> String {
        var result = ""
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += byte < 16 ? "%0\(hex)" : "%\(hex)"
            }
        }
        return result
    }
}
