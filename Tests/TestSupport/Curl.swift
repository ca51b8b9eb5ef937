import ChildProcesses
import Foundation

/// Runs the real `curl` against a test server, to check the wire as any HTTP client sees it.
///
/// The process is awaited without blocking a thread: the servers under test run their handlers on the same
/// small cooperative pool, and a blocked pool thread would starve them.
public struct Curl {
    /// What curl reported.
    public struct Result: Sendable {
        public var status: Int
        public var httpVersion: String
        public var body: String
    }

    /// Runs curl with `arguments` plus `-s -o <file> -w '%{http_code} %{http_version}'`; curl gives up after 20 s.
    /// `body` is sent as the request body from a file (`--data-binary @file`).
    public static func run(_ arguments: [String], body: Data? = nil) async throws -> Result {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("body").path
        let written = directory.appendingPathComponent("written").path
        var extra: [String] = []
        if let body {
            let input = directory.appendingPathComponent("request").path
            try body.write(to: URL(fileURLWithPath: input))
            extra = ["--data-binary", "@\(input)"]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments =
            ["-s", "--max-time", "20", "-o", output, "-w", "%{http_code} %{http_version}"] + extra + arguments
        _ = FileManager.default.createFile(atPath: written, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: written))
        process.standardInput = FileHandle.nullDevice
        try await process.runToExit()
        let parts = ((try? String(contentsOfFile: written, encoding: .utf8)) ?? "").split(separator: " ")
        return Result(
            status: parts.first.flatMap { Int($0) } ?? 0,
            httpVersion: parts.count > 1 ? String(parts[1]) : "",
            body: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }
}
