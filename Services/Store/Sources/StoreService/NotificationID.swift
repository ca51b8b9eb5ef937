import Foundation

/// Notification ids: random 128-bit UUIDv4s in lowercase, never sequential, so they cannot be guessed.
public enum NotificationID {
    /// A fresh id.
    public static func make() -> String {
        UUID.random().uuidString.lowercased()
    }

    /// The canonical (lowercase) form of `text` when it is a UUID; `nil` otherwise.
    public static func normalized(_ text: String) -> String? {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return nil }
        return uuid.uuidString.lowercased()
    }
}
