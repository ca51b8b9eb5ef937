import Foundation

/// The plaintext of every Web Push message SecurePush sends: only the notification id, as `{"secureId":"<id>"}`.
///
/// The service worker receives it in its `push` event (`event.data.json().secureId`) and fetches the payload from
/// notification-store itself, so neither the push service nor push-dispatch's delivery path ever sees the payload.
struct WebPushMessage: Codable, Hashable {
    /// The notification id.
    var secureId: String

    /// The exact bytes encrypted into the message: compact JSON, one key.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct holding one String cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }
}
