import ChildProcesses
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// README.md's Quick start and CLI walk, and the mistakes of docs/troubleshooting.md, run as written against the real `securepush` binary
/// (built by `swift test` beside this test bundle), checking every output README shows. Only the ports differ: README's
/// 8081/8082/8083 become free ports, so the test runs beside anything else on the machine.
@Suite("README walkthrough", .serialized)
struct ReadmeWalkthroughTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md, then docs/troubleshooting.md: its mistakes are made right after README's walk, in its terminals.
    static func markdown() throws -> String {
        try ["README.md", "docs/troubleshooting.md"].map {
            try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
    }

    @Test("README's Quick start and CLI walk run as written and print what README shows, mistakes and hints included")
    func walkthrough() async throws {
        let script = try ReadmeScript(markdown: Self.markdown())
        #expect(script.setup.contains { $0.hasPrefix("swift build") }, "Quick start builds once with swift build")
        #expect(
            script.setup.contains { $0.contains("export PATH=\"$PWD/.build/debug:$PATH\"") },
            "Quick start puts .build/debug on PATH")
        let session = try ReadmeSession()
        do {
            for step in script.steps { try await session.perform(step) }
        } catch {
            await session.stopAll()
            session.removeFiles()
            throw error
        }
        await session.stopAll()
        #expect(session.ran.contains { $0.contains("securepush listen") }, "the walk runs a listener")
        #expect(session.ran.filter { $0.contains("securepush up") }.count >= 2, "the walk shows a second up")
        session.removeFiles()
    }

    @Test("the wildcard matcher: … stands for any text, everything else must be equal")
    func wildcard() {
        #expect(ReadmeScript.matches("notification 6f1c-42", shown: "notification …"))
        #expect(ReadmeScript.matches("a [x] b: c", shown: "a […] …: c"))
        #expect(ReadmeScript.matches("connecting to x…", shown: "connecting to x…"))
        #expect(!ReadmeScript.matches("notification", shown: "notification …"))
        #expect(!ReadmeScript.matches("error: other", shown: "error: cannot …"))
        #expect(ReadmeScript.subsequenceEnd(of: ["b", "d"], in: ["a", "b", "c", "d"], from: 0) == 4)
        #expect(ReadmeScript.subsequenceEnd(of: ["d", "b"], in: ["a", "b", "c", "d"], from: 0) == nil)
    }
}

/// The terminals of README's walk: a working directory, a HOME, free ports, and the commands running in them.
final class ReadmeSession: @unchecked Sendable {
    let directory: String
    let home: String
    let ports: [String: Int]
    let environment: [String: String]
    private(set) var background: [ShellCommand] = []
    private(set) var ran: [String] = []
    private var listenerPosition = 0
    private var values: [String: String] = [:]

    init() throws {
        let root = TemporaryDirectory.processRootURL.appendingPathComponent("securepush-readme-\(UUID())").path
        directory = root + "/repo"
        home = root + "/home"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let free = try LoopbackPort.free(count: 3)
        ports = ["8081": free[0], "8082": free[1], "8083": free[2]]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SECUREPUSH_") }
        environment["HOME"] = home
        environment["PATH"] = ServiceProcess.buildDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["SECUREPUSH_BCRYPT_COST"] = "10"
        for (variable, port) in [("AUTH", "8081"), ("STORE", "8082"), ("DISPATCH", "8083")] {
            environment["SECUREPUSH_\(variable)_PORT"] = "\(ports[port]!)"
            environment["SECUREPUSH_\(variable)_URL"] = "http://127.0.0.1:\(ports[port]!)"
        }
        self.environment = environment
    }

    /// README's text with its ports and placeholders replaced by this session's.
    func adapt(_ text: String) -> String {
        var text = text
        for (shown, port) in ports { text = text.replacingOccurrences(of: shown, with: "\(port)") }
        for (placeholder, value) in values { text = text.replacingOccurrences(of: placeholder, with: value) }
        return text
    }

    func perform(_ step: ReadmeScript.Step) async throws {
        switch step {
        case .run(let shownCommand, let shownOutput):
            let command = adapt(shownCommand)
            let expected = shownOutput.map(adapt)
            ran.append(command)
            if command.contains("securepush up") || command.contains("securepush listen") {
                try await runInBackground(command, expected: expected)
            } else {
                try await runToEnd(command, expected: expected)
            }
        case .listenerPrints(let shown):
            let listener = try #require(background.last { $0.command.contains("securepush listen") })
            let expected = shown.map(adapt)
            let start = listenerPosition
            try await listener.waitForOutput(timeout: .seconds(60)) {
                ReadmeScript.subsequenceEnd(of: expected, in: $0, from: start) != nil
            }
            listenerPosition = ReadmeScript.subsequenceEnd(of: expected, in: listener.lines, from: start) ?? start
        case .stop(let what):
            let running = try #require(background.last { $0.command.contains(what) && $0.exitStatus() == nil })
            await running.interrupt()
            #expect(running.exitStatus() == 0, "Ctrl-C stops `\(running.command)` cleanly:\n\(running.text)")
        }
    }

    private func runToEnd(_ command: String, expected: [String]) async throws {
        let process = try ShellCommand(command, directory: directory, environment: environment)
        let status = try await process.wait(timeout: .seconds(90))
        let lines = process.lines
        #expect(
            lines.count == expected.count
                && zip(lines, expected).allSatisfy { ReadmeScript.matches($0, shown: $1) },
            "`\(command)` printed:\n\(lines.joined(separator: "\n"))\nREADME shows:\n\(expected.joined(separator: "\n"))"
        )
        #expect(status == Self.exitCode(for: expected, command: command), "`\(command)` exited \(status)")
        remember(lines)
    }

    private func runInBackground(_ command: String, expected: [String]) async throws {
        let before = snapshot(of: directory + "/.securepush")
        // `exec`: Ctrl-C (SIGINT to the group) must reach the command itself, not a shell waiting for it.
        let line: String
        if let range = command.range(of: "&& ", options: .backwards) {
            line = command[..<range.upperBound] + "exec " + command[range.upperBound...]
        } else {
            line = "exec " + command
        }
        let process = try ShellCommand(line, directory: directory, environment: environment)
        background.append(process)
        if command.contains("securepush listen") { listenerPosition = 0 }
        try await process.waitForOutput(timeout: .seconds(90)) {
            ReadmeScript.subsequenceEnd(of: expected, in: $0, from: 0) != nil
        }
        if command.contains("securepush listen") {
            listenerPosition = ReadmeScript.subsequenceEnd(of: expected, in: process.lines, from: 0) ?? 0
        }
        if expected.first?.hasPrefix("error:") == true {
            let status = try await process.wait(timeout: .seconds(30))
            #expect(status == Self.exitCode(for: expected, command: command), "`\(command)` exited \(status)")
            #expect(
                snapshot(of: directory + "/.securepush") == before, "a failed `\(command)` must not write anything")
        } else if command.contains("securepush up") {
            try checkPrivateFiles()
        }
        remember(process.lines)
    }

    /// The data directory and ~/.securepush are the owner's only (README's security section promises 0700).
    private func checkPrivateFiles() throws {
        let data = try FileManager.default.attributesOfItem(atPath: directory + "/.securepush")
        #expect((data[.posixPermissions] as? Int) == 0o700, "./.securepush is created 0700")
        let client = try FileManager.default.attributesOfItem(atPath: directory + "/.securepush/backend-client.json")
        #expect((client[.posixPermissions] as? Int) == 0o600, "backend-client.json is 0600")
        if let session = try? FileManager.default.attributesOfItem(atPath: home + "/.securepush") {
            #expect((session[.posixPermissions] as? Int) == 0o700, "~/.securepush is created 0700")
        }
    }

    /// README's exit codes: 0 without an error; 2 unreachable, 3 sign-in needed, 4 `up` could not start, else (and
    /// for every failed `health`, as container health checks expect) 1.
    static func exitCode(for expected: [String], command: String) -> Int32 {
        guard let error = expected.first(where: { $0.hasPrefix("error:") }) else { return 0 }
        if command.contains("securepush health") { return 1 }
        if error.hasPrefix("error: cannot reach") || error.contains("does not speak TLS") { return 2 }
        if ["error: your session", "error: not signed in", "error: invalid username or password"].contains(where: {
            error.hasPrefix($0)
        }) {
            return 3
        }
        if error.hasPrefix("error: port") { return 4 }
        return 1
    }

    /// Ids printed, for the placeholders later commands use.
    private func remember(_ lines: [String]) {
        for line in lines {
            if let match = line.firstMatch(of: /^notification ([0-9a-f-]{36})$/) {
                values["<notification id>"] = String(match.output.1)
            }
        }
    }

    /// The names under `path`, and the development client file's size and modification time (the databases of a
    /// running `up` change by themselves).
    private func snapshot(of path: String) -> [String] {
        let names = ((try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []).sorted()
        let client = try? FileManager.default.attributesOfItem(atPath: path + "/backend-client.json")
        return names + ["\(client?[.size] ?? "-") \(client?[.modificationDate] ?? "-")"]
    }

    /// Interrupts every background command (listeners first), killing what does not stop.
    func stopAll() async {
        for process in background.reversed() { await process.interrupt() }
    }

    func removeFiles() {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }
}
