/// A bound on one text field, checked the same way by every service: a length in UTF-8 bytes (what storage and the
/// wire pay for, whatever the script) and, for names people read, no control or bidirectional-override characters.
public struct TextLimit: Sendable, Hashable {
    /// The accepted length, in UTF-8 bytes.
    public let bytes: ClosedRange<Int>
    /// Whether control, line-separator and bidi embedding/override/isolate characters are refused.
    public let refusesInvisibleControls: Bool

    public init(bytes: ClosedRange<Int>, refusesInvisibleControls: Bool) {
        self.bytes = bytes
        self.refusesInvisibleControls = refusesInvisibleControls
    }

    /// Why `text` is refused, as the end of a `-32602` message (`"'name' <reason>"`); `nil` when it is accepted.
    public func violation(in text: String) -> String? {
        let count = text.utf8.count
        guard bytes.contains(count) else {
            return "must be \(bytes.lowerBound)–\(bytes.upperBound) bytes of UTF-8 (got \(count))"
        }
        if refusesInvisibleControls, text.unicodeScalars.contains(where: Self.isInvisibleControl) {
            return "must not contain control or bidirectional-override characters"
        }
        return nil
    }

    /// Control characters (C0, DEL, C1), line and paragraph separators, and the bidi embeddings, overrides and
    /// isolates (U+202A–U+202E, U+2066–U+2069) that make a name display as something else ("Trojan Source").
    public static func isInvisibleControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

extension TextLimit {
    /// A recipient (user) id in `push.send` and `store.put`: 1–128 bytes, no control characters.
    public static let recipientID = TextLimit(bytes: 1...128, refusesInvisibleControls: true)
    /// An idempotency key in `push.send`: 1–255 bytes.
    public static let idempotencyKey = TextLimit(bytes: 1...255, refusesInvisibleControls: false)
    /// A platform device token in `devices.register` (a Web Push subscription is the largest kind): 1–4096 bytes.
    public static let deviceToken = TextLimit(bytes: 1...4096, refusesInvisibleControls: false)
    /// A device name in `devices.register`, shown to people: 1–128 bytes, no control or bidi-override characters.
    public static let deviceName = TextLimit(bytes: 1...128, refusesInvisibleControls: true)
    /// A username in `auth.register` and `auth.login`: 3–64 bytes (auth also restricts it to `[a-z0-9._-]`).
    public static let username = TextLimit(bytes: 3...64, refusesInvisibleControls: true)
    /// A client id at auth: 3–64 bytes (auth also restricts it to `[A-Za-z0-9._-]`).
    public static let clientID = TextLimit(bytes: 3...64, refusesInvisibleControls: true)
}
