import Foundation
import PrivateFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The checkpoint directory outside the database: `<directory>/<service>/<chain>.jsonl`, one
/// ``AuditCheckpoint/jsonLine`` per checkpoint, appended and flushed to disk.
public struct AuditCheckpointFiles: Sendable {
    /// `SECUREPUSH_AUDIT_CHECKPOINT_DIR`.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Appends `checkpoint` to its chain's file, creating the file (0600) and directories (0700) when needed.
    public func append(_ checkpoint: AuditCheckpoint) throws {
        let folder = (directory as NSString).appendingPathComponent(checkpoint.service)
        try PrivateFile.createDirectory(folder)
        let path = (folder as NSString).appendingPathComponent("\(checkpoint.chain).jsonl")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AuditFileError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let bytes = Array((checkpoint.jsonLine + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw AuditFileError("cannot append to \(path): \(String(cString: strerror(errno)))")
        }
        guard fsync(descriptor) == 0 else {
            throw AuditFileError("cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Every checkpoint in the files of `service`, with the lines that are not checkpoints as faults
    /// (`file:line`).
    public func checkpoints(of service: String) throws -> (checkpoints: [AuditCheckpoint], malformed: [String]) {
        let folder = (directory as NSString).appendingPathComponent(service)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return ([], []) }
        var checkpoints: [AuditCheckpoint] = []
        var malformed: [String] = []
        for name in names.sorted() where name.hasSuffix(".jsonl") {
            let path = (folder as NSString).appendingPathComponent(name)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
                if let checkpoint = AuditCheckpoint(jsonLine: line), checkpoint.service == service,
                    name == "\(checkpoint.chain).jsonl"
                {
                    checkpoints.append(checkpoint)
                } else {
                    malformed.append("\(path):\(index + 1)")
                }
            }
        }
        return (checkpoints, malformed)
    }
}

/// A checkpoint file that cannot be written or read.
public struct AuditFileError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
