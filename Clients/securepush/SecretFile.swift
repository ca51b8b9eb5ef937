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

    static func read<T: Decodable>(_ type: T.Type, from path: String) throws -> T? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: data)
    }
}
