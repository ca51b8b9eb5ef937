import Crypto
import Foundation

/// A webhook's signing secret in the Standard Webhooks format: `whsec_` and the base64 of 24 random bytes (the key
/// HMAC-SHA256 signs with).
struct WebhookSecret: Sendable, Hashable {
    /// The prefix every secret starts with.
    static let prefix = "whsec_"

    /// The HMAC key.
    let key: SymmetricKey

    /// A new random secret.
    static func generate() -> WebhookSecret {
        WebhookSecret(key: SymmetricKey(size: .init(bitCount: 192)))
    }

    /// Reads `whsec_<base64>` (the prefix optional, as receivers' libraries accept); `nil` when it is not one.
    init?(_ text: String) {
        let encoded = text.hasPrefix(Self.prefix) ? String(text.dropFirst(Self.prefix.count)) : text
        guard let bytes = Data(base64Encoded: encoded), bytes.count >= 24, bytes.count <= 64 else { return nil }
        key = SymmetricKey(data: bytes)
    }

    private init(key: SymmetricKey) {
        self.key = key
    }

    /// The secret as shown to its owner: `whsec_<base64>`.
    var text: String {
        Self.prefix + key.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    static func == (lhs: WebhookSecret, rhs: WebhookSecret) -> Bool { lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
