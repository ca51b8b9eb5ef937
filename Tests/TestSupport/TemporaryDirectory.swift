import Foundation

/// A fresh directory under the system temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// Where it is.
    public let path: String

    /// Creates it; `prefix` names the tests it belongs to.
    public init(prefix: String = "securepush-tests") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Deletes it and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
