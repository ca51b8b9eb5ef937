import Foundation
import PrivateFiles

/// Reads and writes small JSON files that hold secrets, readable by their owner only (mode 0600).
enum SecretFile {
    /// Writes `value` as JSON through ``PrivateFile``: the data directory and ~/.securepush are created 0700, the
    /// file is 0600 from its creation, and a reader (another command, a crash halfway) sees the old file or the new
    /// one, never half of one.
    static func write<T: Encodable>(_ value: T, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        do throws(PrivateFileError) {
            try PrivateFile.write(data, to: path)
        } catch {
            throw CLIError(error.description)
        }
    }

    /// The JSON file at `path`, decoded; `nil` when there is no file there. A file that exists but cannot be read
    /// (its mode, a directory in its place) or decoded is an error naming it, never taken for a missing one.
    static func read<T: Decodable>(_ type: T.Type, from path: String) throws -> T? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        let data: Data
        do {
            guard !isDirectory.boolValue else { throw CocoaError(.fileReadUnknown) }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError(
                "cannot read \(path)\(isDirectory.boolValue ? ": it is a directory" : "")",
                hint: "check the file's owner and mode (the CLI writes it 0600), or remove it", detail: "\(error)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw CLIError(
                "\(path) is not a file the CLI wrote (it does not decode)",
                hint: "remove it, or restore the file the CLI wrote", detail: "\(error)")
        }
    }
}
