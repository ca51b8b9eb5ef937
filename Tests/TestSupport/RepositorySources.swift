import Foundation

/// The repository's own files, for the tests that check what the code and the docs name.
public enum RepositorySources {
    /// The repository's root.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where code reads variables: the programs, the tests, the benchmarks, the compose files and CI.
    public static let everywhere = ["Services", "Shared", "Clients", "Tests", "Benchmarks", "compose", ".ci"]

    /// The text of every source, script or configuration file under `directories` (relative to ``root``), one after
    /// the other, except files whose names end in one of `excluding`.
    public static func text(in directories: [String] = everywhere, excluding: [String] = []) -> String {
        var text = ""
        for directory in directories {
            guard let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(directory).path)
            else { continue }
            for case let path as String in walker
            where [".swift", ".sh", ".py", ".yml", ".yaml", ".example", "run"].contains(where: { path.hasSuffix($0) })
                && !excluding.contains(where: { path.hasSuffix($0) })
            {
                text +=
                    (try? String(contentsOf: root.appendingPathComponent(directory + "/" + path), encoding: .utf8))
                    ?? ""
            }
        }
        return text
    }
}
