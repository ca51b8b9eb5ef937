/// An app's id (`retail-ios`): 2 to 64 characters of `a-z`, `0-9` and `-`, chosen by the operator.
public enum AppID {
    /// Whether `id` is a well-formed app id.
    public static func isValid(_ id: String) -> Bool {
        (2...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// The `-32602` reason for a malformed id.
    public static let requirement = "must be 2 to 64 characters of a-z, 0-9 and '-'"
}
