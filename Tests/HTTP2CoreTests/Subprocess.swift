import ChildProcesses
import Foundation

/// Runs a peer program (curl, python3, h2load) to exit and returns its output, without blocking a thread.
struct Subprocess {
    struct Result: Sendable {
        var status: Int32
        var output: String
        var errorOutput: String
    }

    /// A peer printed no JSON (it crashed): its exit status and standard error.
    struct PeerFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` to its exit, at most `limit` (then it is killed and `Process.TimedOut` thrown).
    static func run(_ executable: String, _ arguments: [String], limit: Duration = .seconds(120)) async throws
        -> Result
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputPath = directory.appendingPathComponent("out")
        let errorPath = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outputPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outputPath)
        process.standardError = try FileHandle(forWritingTo: errorPath)
        process.standardInput = FileHandle.nullDevice
        let status = try await process.runToExit(within: limit)
        return Result(
            status: status,
            output: (try? String(contentsOf: outputPath, encoding: .utf8)) ?? "",
            errorOutput: (try? String(contentsOf: errorPath, encoding: .utf8)) ?? "")
    }

    /// curl with `-s`, a 20 s limit, and `-w` printing `status version` after the body on a last line; `exit` is
    /// curl's exit status (28: timed out, e.g. a response that never ended).
    static func curl(_ arguments: [String]) async throws -> (status: Int, version: String, body: String, exit: Int32) {
        let result = try await run(
            "/usr/bin/curl", ["-s", "--max-time", "20", "-w", "\n%{http_code} %{http_version}"] + arguments)
        var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let last = lines.popLast().map(String.init) ?? ""
        let parts = last.split(separator: " ")
        return (
            parts.first.flatMap { Int($0) } ?? 0, parts.count > 1 ? String(parts[1]) : "",
            lines.joined(separator: "\n"), result.status
        )
    }

    /// The Python peer (``peerScript``) in `mode`, its JSON output decoded.
    static func peer(_ mode: String, port: Int, _ extra: [String] = []) async throws -> [String: Any] {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("h2peer-\(UUID().uuidString).py")
        try Data(peerScript.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let result = try await run(try PeerTools.requirePython(), [script.path, mode, String(port)] + extra)
        guard let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
            throw PeerFailed(description: "peer \(mode) exited \(result.status): \(result.errorOutput.suffix(1500))")
        }
        return object
    }
}
