import ChildProcesses
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
    ///
    /// A port chosen here may be taken by another test's process before this one binds it (the choice and the bind are
    /// apart): then the service is started again on another port (`choosePort`'s next), up to three times. With
    /// `port` given, a port another process holds fails the start with a message saying so.
    static func start(
        _ executable: String, name: String, environment: [String: String], portVariable: String, logger: Logger,
        unset: Set<String> = [], port: Int? = nil, choosePort: () throws -> Int = LoopbackPort.free
    ) async throws -> ServiceProcess {
        let binary = Self.buildDirectory.appendingPathComponent(executable).path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ServiceProcessError("\(binary) is missing: build it first (swift build --build-tests)")
        }
        var variables = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("SECUREPUSH_") && !unset.contains($0.key)
        }
        variables.merge(environment) { _, new in new }
        variables["SECUREPUSH_HOST"] = "127.0.0.1"
        variables["SECUREPUSH_LOG_LEVEL"] = variables["SECUREPUSH_LOG_LEVEL"] ?? "warning"
        for attempt in 1...3 {
            let chosen = try port ?? choosePort()
            variables[portVariable] = "\(chosen)"
            let service = try launch(binary, name: name, environment: variables, port: chosen)
            do {
                try await service.waitUntilHealthy(logger: logger)
                return service
            } catch {
                // Never left running: a failed start is in no ServiceProcesses' list, so nothing else would stop it
                // (the error carries its output).
                await service.stop(signal: SIGKILL)
                guard let refusal = error as? ServiceProcessError, refusal.portTaken, port == nil, attempt < 3 else {
                    throw error
                }
                logger.notice("\(refusal.description.prefix(200)); starting it on another port")
            }
        }
        preconditionFailure("unreachable: the third attempt returns or throws")
    }

    /// Runs `binary` with `environment`, its output going to a log file.
    private static func launch(
        _ binary: String, name: String, environment: [String: String], port: Int
    ) throws -> ServiceProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.environment = environment
        let logPath = TemporaryDirectory.processRootURL.appendingPathComponent("\(name)-\(UUID().uuidString).log")
            .path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        let exited = try process.runInBackground()
        return ServiceProcess(name: name, port: port, process: process, exited: exited, logPath: logPath)
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

    /// Polls `GET /health` for up to 60 s; ready counts only when this process holds the port's listener. An answer
    /// from another process's listener (another test's service took the port first) is not ready: polling goes on
    /// until this process exits for the taken port (``ServiceProcessError/portTaken``) or its listener is seen (a
    /// line of `/proc/net/tcp` can go missing while other servers come and go, so one miss proves nothing).
    func waitUntilHealthy(logger: Logger) async throws {
        var answeredByAnother = false
        for _ in 0..<240 {
            if !process.isRunning {
                let output = output
                let portTaken = output.contains("Address already in use")
                let cause = portTaken && answeredByAnother ? " (another process answered on port \(port))" : ""
                throw ServiceProcessError(
                    "\(name) exited (\(process.terminationStatus)) before it was ready\(cause):\n\(output)",
                    portTaken: portTaken)
            }
            if let health = try? await ServiceHealthCheck.check(
                baseURL: url, caFile: nil, timeout: .seconds(5), logger: logger), health.isReady
            {
                if LoopbackPort.isHeld(byProcess: process.processIdentifier, port: port) != false, process.isRunning {
                    return
                }
                answeredByAnother = true
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw ServiceProcessError(
            "\(name) was not healthy after 60 s\(answeredByAnother ? " (another process answered on its port)" : ""):"
                + "\n\(output)")
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
}

struct ServiceProcessError: Error, CustomStringConvertible {
    let description: String
    /// The port was taken by another process before the service bound it.
    let portTaken: Bool

    init(_ description: String, portTaken: Bool = false) {
        self.description = description
        self.portTaken = portTaken
    }
}
