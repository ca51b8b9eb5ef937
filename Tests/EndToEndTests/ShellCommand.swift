import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A command line run by `/bin/sh -c` in its own process group, standard output and standard error merged into one
/// pipe as a terminal shows them; the test can read what it printed so far, wait for lines, interrupt or kill it.
final class ShellCommand: @unchecked Sendable {
    let command: String
    let pid: pid_t
    private let process: Process
    private let output = Mutex(Data())
    private let readerDone = Mutex(false)

    /// Starts `command` in `directory` with exactly `environment`; standard input is /dev/null.
    init(_ command: String, directory: String, environment: [String: String]) throws {
        self.command = command
        let process = Process()
        // Foundation's Process starts the child as the leader of its own process group (so a signal to the group
        // reaches every process the shell started) and closes the test process's other descriptors in it (so no
        // listening socket of another test leaks into a long-running command).
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "cd \"$1\" || exit 97; eval \"$2\"", "sh", directory, command]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        pid = process.processIdentifier
        try Self.killWhenTestProcessDies(group: pid)
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                output.withLock { $0.append(chunk) }
            }
            readerDone.withLock { $0 = true }
        }
    }

    /// Starts a watchdog (its own process group) that kills `group` if this test process dies first: a crash skips
    /// the test's own clean-up, and a leftover `securepush up` would hold its ports. It ends when the group leader does.
    private static func killWhenTestProcessDies(group: pid_t) throws {
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = [
            "-c",
            "while kill -0 \(getpid()) 2>/dev/null && kill -0 \(group) 2>/dev/null; do sleep 1; done; "
                + "kill -0 \(getpid()) 2>/dev/null || kill -KILL -\(group) 2>/dev/null",
        ]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
    }

    /// Everything printed so far.
    var text: String { String(decoding: output.withLock { $0 }, as: UTF8.self) }

    /// The printed lines so far (complete ones only).
    var lines: [String] {
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()
        return lines
    }

    /// The exit status once it exited (128 + signal when killed), else `nil`.
    func exitStatus() -> Int32? {
        guard !process.isRunning else { return nil }
        let code = process.terminationStatus
        return process.terminationReason == .uncaughtSignal ? 128 + code : code
    }

    /// Waits up to `timeout` for the command to exit (then kills it); returns its status.
    func wait(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exitStatus() { return try await drained(status) }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(signal: SIGKILL)
        throw ShellCommandError("`\(command)` did not finish within \(timeout); it printed:\n\(text)")
    }

    /// Waits up to `timeout` until `predicate` holds for the printed lines.
    func waitForOutput(timeout: Duration, until predicate: ([String]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(lines) { return }
            if exitStatus() != nil {
                try await Task.sleep(for: .milliseconds(200))  // the last lines may still be in the pipe
                if predicate(lines) { return }
                throw ShellCommandError("`\(command)` exited before printing what was expected; it printed:\n\(text)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ShellCommandError("`\(command)` did not print what was expected within \(timeout); it printed:\n\(text)")
    }

    /// Signals the whole process group.
    func kill(signal: Int32) {
        if exitStatus() == nil { Glibc.kill(-pid, signal) }
    }

    /// Interrupts (Ctrl-C) and waits up to 30 s, then kills.
    func interrupt() async {
        kill(signal: SIGINT)
        _ = try? await wait(timeout: .seconds(30))
    }

    /// Lets the reader collect the last bytes after the process exited (up to 2 s: a leftover child may hold the pipe).
    private func drained(_ status: Int32) async throws -> Int32 {
        for _ in 0..<40 where !readerDone.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        return status
    }
}

struct ShellCommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
