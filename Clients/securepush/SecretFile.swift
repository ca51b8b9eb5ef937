import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads and writes small JSON files that hold secrets, readable by their owner only (mode 0600).
enum SecretFile {
    static func write<T: Encodable>(_ value: T, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        // Owner only, like the files in it: the data directory and ~/.securepush hold secrets.
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        // Through a new 0600 file and a rename: the secret is never readable by others, not even briefly, and a
        // reader (another command, a crash halfway) sees the old file or the new one, never half of one.
        let temporary = path + ".tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw CLIError("cannot create \(temporary)") }
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try handle.write(contentsOf: data)
            try handle.close()
            guard rename(temporary, path) == 0 else { throw CLIError("cannot replace \(path)") }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    static func read<T: Decodable>(_ type: T.Type, from path: String) throws -> T? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: data)
    }
}
