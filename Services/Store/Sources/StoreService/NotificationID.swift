import Foundation

/// Notification ids: random 128-bit UUIDv4s in lowercase, never sequential, so they cannot be guessed.
public enum NotificationID {
    /// A fresh id.
    public static func make() -> String {
        UUID.random().uuidString.lowercased()
    }

    /// The canonical (lowercase) form of `text` when it is a UUID (`8-4-4-4-12` hex digits, either case); `nil`
    /// otherwise. Checked byte by byte, as it runs on every fetch: Foundation's `UUID(uuidString:)` parses with
    /// `sscanf` (which also took a space or a sign before a byte pair, reading another id) and prints with
    /// `snprintf`. An id already in lowercase comes back as it is.
    public static func normalized(_ text: String) -> String? {
        var uppercase = false
        var index = 0
        for byte in text.utf8 {
            switch (index, byte) {
            case (8, UInt8(ascii: "-")), (13, UInt8(ascii: "-")), (18, UInt8(ascii: "-")), (23, UInt8(ascii: "-")):
                break
            case (8, _), (13, _), (18, _), (23, _): return nil
            case (_, UInt8(ascii: "0")...UInt8(ascii: "9")), (_, UInt8(ascii: "a")...UInt8(ascii: "f")): break
            case (_, UInt8(ascii: "A")...UInt8(ascii: "F")): uppercase = true
            default: return nil
            }
            index += 1
            guard index <= 36 else { return nil }
        }
        guard index == 36 else { return nil }
        return uppercase ? text.lowercased() : text
    }
}
