/// A private file or its directory could not be written; says which path and why, never what was to be written.
public struct PrivateFileError: Error, CustomStringConvertible, Sendable {
    /// The file or directory.
    public let path: String
    /// Why, for a person (the system's error text).
    public let reason: String
    /// What was being done: `write` or `create`.
    let action: String

    init(_ action: String, _ path: String, reason: String) {
        self.action = action
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot \(action) \(path): \(reason)" }
}
