import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes files that hold secrets (keys, credentials) so that no one else can read them and no reader ever sees half
/// of one: the one implementation behind the CLI's credentials, the SDK's device key, the store key file and the
/// development PKI.
///
/// The bytes go to a new file beside the target, created exclusively (`O_EXCL | O_NOFOLLOW`) with its final mode
/// before the first byte is written, flushed to disk (`fsync`), then moved into place in one step: `rename(2)`,
/// which replaces what was there, or `link(2)`, which never does. A missing parent directory is created 0700.
public enum PrivateFile {
    /// What a write does when something already exists at the path.
    public enum Existing: Sendable {
        /// Replace it in one rename: readers see the old file or the new one (a symbolic link is replaced itself,
        /// never followed).
        case replace
        /// Keep it and write nothing (a symbolic link, even a dangling one, counts as existing and is not followed):
        /// of two processes creating the file at once, exactly one wins.
        case keep
    }

    /// Writes `contents` to `path`, readable by its owner only unless `permissions` says otherwise.
    /// - Returns: whether the file was written; `false` only when `existing` is `.keep` and something is at `path`.
    @discardableResult
    public static func write(
        _ contents: some DataProtocol, to path: String, permissions: mode_t = 0o600, existing: Existing = .replace
    ) throws(PrivateFileError) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try createDirectory(directory) }
        let temporary = path + ".tmp-\(UUID().uuidString)"
        try writeNewFile(temporary, contents: contents, permissions: permissions, reportedAs: path)
        defer { unlink(temporary) }
        switch existing {
        case .replace:
            guard rename(temporary, path) == 0 else { throw PrivateFileError("write", path, reason: lastError()) }
        case .keep:
            guard link(temporary, path) == 0 else {
                if errno == EEXIST { return false }
                throw PrivateFileError("write", path, reason: lastError())
            }
        }
        // The new directory entry reaches the disk too (best effort: some file systems refuse to sync a directory).
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
        return true
    }

    /// Creates the directory `path` and any missing parents with `permissions` (owner only by default); an existing
    /// directory is left as it is.
    public static func createDirectory(_ path: String, permissions: mode_t = 0o700) throws(PrivateFileError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(permissions)])
        } catch {
            throw PrivateFileError("create", path, reason: Self.reason(error))
        }
    }

    /// Creates `path` (which must not exist) with `permissions`, writes `contents` and flushes them to disk.
    private static func writeNewFile(
        _ path: String, contents: some DataProtocol, permissions: mode_t, reportedAs target: String
    ) throws(PrivateFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw PrivateFileError("write", target, reason: lastError()) }
        var complete = false
        defer {
            close(descriptor)
            if !complete { unlink(path) }
        }
        // The mode given to open(2) is narrowed by the umask; the file must have exactly `permissions`.
        guard fchmod(descriptor, permissions) == 0 else { throw PrivateFileError("write", target, reason: lastError()) }
        let bytes = [UInt8](contents)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw PrivateFileError("write", target, reason: lastError())
            }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw PrivateFileError("write", target, reason: lastError()) }
        complete = true
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
