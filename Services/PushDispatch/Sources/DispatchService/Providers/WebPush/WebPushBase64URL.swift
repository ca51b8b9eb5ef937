import Foundation

/// The URL-safe base64 of RFC 4648 §5 without padding, which Web Push uses for keys, salts and JWT parts.
enum WebPushBase64URL {
    /// Encodes without padding.
    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; also accepts standard base64, which some subscription
    /// serialisers emit. `nil` when the text is not base64 at all.
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.hasSuffix("=") { base64.removeLast() }
        guard base64.count % 4 != 1 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
