import ChildProcesses
import Foundation

extension Process {
    /// Runs the process to its exit without blocking a thread (see ``runToExit(within:)``), its standard output and standard
    /// error captured in temporary files: reading a pipe would block a thread of the cooperative pool until the child
    /// exits, and an unread full pipe would block the child.
    public func runCapturingOutput() async throws -> (status: Int32, output: Data, error: String) {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputFile = directory.appendingPathComponent("stdout")
        let errorFile = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        standardOutput = output
        standardError = errors
        let status: Int32
        do {
            status = try await runToExit()
        } catch {
            try? output.close()
            try? errors.close()
            throw error
        }
        try? output.close()
        try? errors.close()
        return (
            status, try Data(contentsOf: outputFile),
            String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
        )
    }
}
