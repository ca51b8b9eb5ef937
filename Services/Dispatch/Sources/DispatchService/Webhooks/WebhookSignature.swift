import Crypto
import Foundation

/// The Standard Webhooks signature: `v1,` and the base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`,
/// one per secret in force (during a rotation's overlap the new and the old), separated by spaces.
enum WebhookSignature {
    /// The `webhook-signature` header for `body` sent as `id` at `timestamp` (whole seconds since 1970).
    static func header(id: String, timestamp: Int64, body: Data, secrets: [WebhookSecret]) -> String {
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        return secrets.map { secret in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: secret.key)).base64EncodedString()
        }.joined(separator: " ")
    }
}
