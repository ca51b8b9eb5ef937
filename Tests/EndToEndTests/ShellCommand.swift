import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A command line run by `/bin/sh -c` in its own process group, standard output and standard error merged into one
/// pipe as a terminal shows them; the test can read what it printed so far, wait for lines, interrupt or kill it.
final class ShellCommand: Sendable {
    let command: String
    let pid: pid_t
    private let output = Mutex(Data())
    private let status = Mutex<Int32?>(nil)
    private let readerDone = Mutex(false)

    /// Starts `command` in `directory` with exactly `environment`; standard input is /dev/null.
    init(_ command: String, directory: String, environment: [String: String]) throws {
        self.command = command
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw ShellCommandError("pipe() failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group: interrupting or killing it reaches every process the shell started.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        // The shell changes directory itself (posix_spawn's chdir action is not exposed to Swift here).
        let arguments = ["/bin/sh", "-c", "cd \"$1\" || exit 97; eval \"$2\"", "sh", directory, command]
        let variables = environment.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(variables) { envp in posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, envp) }
        }
        close(pipeEnds[1])
        guard status == 0 else {
            close(pipeEnds[0])
            throw ShellCommandError("posix_spawn failed (\(status)) for \(command)")
        }
        pid = child
        let reader = pipeEnds[0]
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count <= 0 { break }
                output.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
            close(reader)
            readerDone.withLock { $0 = true }
        }
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
        status.withLock { known in
            if let known { return known }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            known = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            return known
        }
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

/// Calls `body` with a NULL-terminated C array of the strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
