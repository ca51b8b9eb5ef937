import Foundation
import Logging
import SecurePushClient
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One of the service executables (`auth-service`, `store-service`, `dispatch-service`) running as its own process,
/// as a replica runs in production. Found beside the test bundle in the build directory.
final class ServiceProcess: @unchecked Sendable {
    let name: String
    let port: Int
    let process: Process
    private let exited: Task<Int32, Never>
    private let logPath: String

    /// Starts `executable` listening on a free loopback port, with `environment` on top of the variables every
    /// service needs (without the test process's `unset` ones), and waits until its `GET /health` says ready.
    static func start(
        _ executable: String, name: String, environment: [String: String], portVariable: String, logger: Logger,
        unset: Set<String> = [], port: Int? = nil
    ) async throws -> ServiceProcess {
        let binary = Self.buildDirectory.appendingPathComponent(executable).path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ServiceProcessError("\(binary) is missing: build it first (swift build --build-tests)")
        }
        let port = try port ?? Self.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        var variables = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("SECUREPUSH_") && !unset.contains($0.key)
        }
        variables.merge(environment) { _, new in new }
        variables["SECUREPUSH_HOST"] = "127.0.0.1"
        variables[portVariable] = "\(port)"
        variables["SECUREPUSH_LOG_LEVEL"] = variables["SECUREPUSH_LOG_LEVEL"] ?? "warning"
        process.environment = variables
        let logPath = TemporaryDirectory.processRootURL.appendingPathComponent("\(name)-\(UUID().uuidString).log")
            .path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        let exited = try process.runInBackground()
        let service = ServiceProcess(name: name, port: port, process: process, exited: exited, logPath: logPath)
        try await service.waitUntilHealthy(logger: logger)
        return service
    }

    private init(name: String, port: Int, process: Process, exited: Task<Int32, Never>, logPath: String) {
        self.name = name
        self.port = port
        self.process = process
        self.exited = exited
        self.logPath = logPath
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// What the process wrote to stdout and stderr.
    var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Polls `GET /health` for up to 60 s.
    func waitUntilHealthy(logger: Logger) async throws {
        for _ in 0..<240 {
            if !process.isRunning {
                throw ServiceProcessError(
                    "\(name) exited (\(process.terminationStatus)) before it was ready:\n\(output)")
            }
            if let health = try? await ServiceHealthCheck.check(
                baseURL: url, caFile: nil, timeout: .seconds(5), logger: logger), health.isReady
            {
                return
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw ServiceProcessError("\(name) was not healthy after 60 s:\n\(output)")
    }

    /// Sends `signal` and waits (up to 30 s, then SIGKILL) for the process to exit; returns its status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let killer = Task {
            try await Task.sleep(for: .seconds(30))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let status = await exited.value
        killer.cancel()
        try? FileManager.default.removeItem(atPath: logPath)
        return status
    }

    /// The directory holding the test bundle and the executables.
    static var buildDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// A loopback port nothing listens on right now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServiceProcessError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw ServiceProcessError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct ServiceProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
