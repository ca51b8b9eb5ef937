import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes keys and secrets so that no one else can read them, and no reader ever sees half of one.
enum PrivateFiles {
    static func createDirectory(_ path: String, permissions: Int) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: permissions])
        } catch {
            throw DevelopmentPKIError("cannot create \(path): \(error.localizedDescription)")
        }
    }

    /// Writes through a temporary file and a rename, so a reader never sees half a key.
    static func write(_ text: String, to path: String, permissions: Int) throws {
        let temporary = path + ".tmp-\(UUID().uuidString)"
        let manager = FileManager.default
        guard
            manager.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: permissions])
        else { throw DevelopmentPKIError("cannot write \(path)") }
        guard rename(temporary, path) == 0 else {
            let reason = String(describing: POSIXErrorCode(rawValue: errno).map(POSIXError.init) as Any)
            try? manager.removeItem(atPath: temporary)
            throw DevelopmentPKIError("cannot write \(path): \(reason)")
        }
    }
}
