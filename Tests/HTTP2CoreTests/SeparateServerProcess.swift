import ChildProcesses
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The core in a process of its own (`h2core-bench-server`, built beside the tests), for measurements that the tests
/// running in parallel in this process would distort, such as peak resident memory.
final class SeparateServerProcess {
    let port: Int
    private let process: Process
    private let directory: URL

    /// Starts the server on a free loopback port and waits (up to 20 s) until it answers.
    init() async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("h2core-bench-server")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Subprocess.PeerFailed(
                description: "\(executable.path) is missing: build with `swift build --build-tests`")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "h2core-separate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let body = directory.appendingPathComponent("body.json")
        try Data(#"{"jsonrpc":"2.0","id":1,"result":{}}"#.utf8).write(to: body)
        port = try LoopbackPort.free()
        process = Process()
        process.executableURL = executable
        process.arguments = ["--port", String(port), "--body-file", body.path]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<80 {
            let probe = try await Subprocess.curl(
                ["--http2-prior-knowledge", "-d", "{}", "http://127.0.0.1:\(port)/rpc"])
            // Only this process's answer counts: another test's server may have taken the port before it bound.
            if probe.status == 200, LoopbackPort.isHeld(byProcess: process.processIdentifier, port: port) != false {
                return
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        stop()
        throw Subprocess.PeerFailed(
            description: "h2core-bench-server did not answer on port \(port) within 20 s, or exited (port taken?)")
    }

    /// The process's peak resident memory so far (VmHWM), in bytes.
    var peakResidentBytes: Int {
        let status =
            (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return kilobytes * 1024
    }

    /// Ends the process and removes its files.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
