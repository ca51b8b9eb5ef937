import Foundation

extension Webhooks {
    /// `webhooks.rotateSecret {webhookId}` (scope `webhooks:manage`) → `{secret, previousSecretExpiresAt}`: a new
    /// secret signs from now on; the old one keeps signing beside it (both signatures in `webhook-signature`) for
    /// `SECUREPUSH_WEBHOOK_SECRET_OVERLAP` seconds, so receivers can switch without losing an event.
    public enum RotateSecret: RPCMethod {
        public static let name = "webhooks.rotateSecret"

        public struct Params: Codable, Sendable, Hashable {
            public var webhookId: String
            public init(webhookId: String) { self.webhookId = webhookId }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The new secret (`whsec_…`), shown here only.
            public var secret: String
            /// When the old secret stops signing.
            public var previousSecretExpiresAt: Date
            public init(secret: String, previousSecretExpiresAt: Date) {
                self.secret = secret
                self.previousSecretExpiresAt = previousSecretExpiresAt
            }
        }
    }
}
