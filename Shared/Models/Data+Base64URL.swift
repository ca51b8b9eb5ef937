import Foundation

extension Data {
    /// Decodes base64url (RFC 4648 §5) with or without padding; standard base64 is accepted too, which some Web Push
    /// subscription serialisers emit. `nil` when the text is not base64 at all.
    public init?(base64URLEncoded text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.hasSuffix("=") { base64.removeLast() }
        guard base64.count % 4 != 1 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    /// Base64url without padding (RFC 7515): JWT parts, Web Push keys, opaque tokens, list cursors.
    public func base64URLEncodedString() -> String { Base64URL.encode(self) }

    /// Decodes strict base64url without padding (RFC 7515 §2), as the sealed-notification contract requires: no `=`,
    /// no `+` or `/`, no whitespace; `nil` otherwise.
    public init?(strictBase64URL text: String) {
        let allowed = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        guard allowed else { return nil }
        self.init(base64URLEncoded: text)
    }
}
