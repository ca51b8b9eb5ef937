import ChildProcesses
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An independent HTTP/2 server in a process of its own (nghttpd, or the Python ``hostileServerScript``) on a free
/// loopback port, for the core's client to talk to.
final class PeerServerProcess {
    let port: Int
    private let process: Process
    private let outputPath: URL
    /// A directory of the peer's own files (the hostile server's script), removed by ``stop()``.
    private let workDirectory: URL?

    /// Starts `executable` with `arguments(port)` and waits (up to 20 s) until `isReady(port)`; ``stop()`` removes
    /// `workDirectory`.
    init(
        _ executable: String, arguments: (Int) -> [String], workDirectory: URL? = nil,
        isReady: (Int) async throws -> Bool
    ) async throws {
        self.workDirectory = workDirectory
        port = try LoopbackPort.free()
        outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("h2peer-out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputPath.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments(port)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputPath)
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("h2peer-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorPath) }
        process.standardError = try FileHandle(forWritingTo: errorPath)
        try process.run()
        for _ in 0..<80 {
            // Only this process's answer counts: another test's server may have taken the port before it bound.
            if try await isReady(port), LoopbackPort.isHeld(byProcess: process.processIdentifier, port: port) != false {
                return
            }
            // A peer that exited will never get ready: say so at once, with what it said.
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        stop()
        // The peer's own words (a missing module, a bad flag), not only that it never answered.
        let said = ((try? String(contentsOf: errorPath, encoding: .utf8)) ?? "").suffix(1500)
        throw Subprocess.PeerFailed(
            description: "\(executable) \(process.arguments ?? []) did not get ready on port \(port) within 20 s"
                + (said.isEmpty ? "" : "; its standard error: \(said)"))
    }

    /// nghttpd serving `documentRoot`, cleartext (prior knowledge) or TLS with `certificate` and `key`.
    static func nghttpd(
        documentRoot: String, tls: (certificate: String, key: String)? = nil, extra: [String] = []
    ) async throws -> PeerServerProcess {
        try await PeerServerProcess(
            "/usr/sbin/nghttpd",
            arguments: { port in
                ["-a", "127.0.0.1", "-d", documentRoot] + extra
                    + (tls.map { [String(port), $0.key, $0.certificate] } ?? ["--no-tls", String(port)])
            },
            isReady: { port in
                let probe = try await Subprocess.curl(
                    tls == nil
                        ? ["--http2-prior-knowledge", "http://127.0.0.1:\(port)/"]
                        : ["-k", "--http2", "https://127.0.0.1:\(port)/"])
                return probe.status != 0
            })
    }

    /// The Python hostile server in `mode` (see ``hostileServerScript``).
    static func hostile(_ mode: String) async throws -> PeerServerProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2hostile-\(UUID().uuidString)")
        let script = directory.appendingPathComponent("server.py")
        let ready = directory.appendingPathComponent("ready")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(hostileServerScript.utf8).write(to: script)
            return try await PeerServerProcess(
                try PeerTools.requirePython(), arguments: { [script.path, mode, String($0), ready.path] },
                workDirectory: directory,
                isReady: { _ in FileManager.default.fileExists(atPath: ready.path) })
        } catch {
            // A peer that never started has no stop() to remove its directory.
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// What the process printed (the hostile server prints a JSON summary when it ends).
    var output: String {
        (try? String(contentsOf: outputPath, encoding: .utf8)) ?? ""
    }

    /// Waits up to `seconds` for the process to end by itself; `true` when it did.
    func waitForExit(seconds: Double) async throws -> Bool {
        for _ in 0..<Int(seconds * 20) {
            if !process.isRunning { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return !process.isRunning
    }

    /// Ends the process (SIGKILL: nghttpd does not end on SIGTERM).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: outputPath)
        if let workDirectory { try? FileManager.default.removeItem(at: workDirectory) }
    }
}
