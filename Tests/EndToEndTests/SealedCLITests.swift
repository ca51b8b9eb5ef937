import ChildProcesses
import Foundation
import SecurePushClient
import SharedModels
import TestSupport
import Testing

@Suite("The CLI as a sealed device")
struct SealedCLITests {
    /// Runs the built `securepush` CLI against `stack` with the credentials at `credentials`; its status and output.
    static func securepush(_ arguments: [String], stack: TestStack, credentials: String) async throws -> (
        Int32, String
    ) {
        let (status, output, _) = try await securepushWithErrors(arguments, stack: stack, credentials: credentials)
        return (status, output)
    }

    /// ``securepush(_:stack:credentials:)`` with what it wrote to standard error too.
    static func securepushWithErrors(_ arguments: [String], stack: TestStack, credentials: String) async throws -> (
        Int32, String, String
    ) {
        let process = Process()
        process.executableURL = ServiceProcess.buildDirectory.appendingPathComponent("securepush")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SECUREPUSH_") }
        environment["SECUREPUSH_AUTH_URL"] = stack.endpoints.auth
        environment["SECUREPUSH_STORE_URL"] = stack.endpoints.store
        environment["SECUREPUSH_DISPATCH_URL"] = stack.endpoints.dispatch
        environment["SECUREPUSH_CREDENTIALS"] = credentials
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let result = try await process.runCapturingOutput()
        return (result.status, String(decoding: result.output, as: UTF8.self), result.error)
    }

    @Test(
        "listen registers sealed and prints the decrypted payload; fetch works with the device key once the session expired"
    )
    func listenAndFetchWithKey() async throws {
        try await TestStack.with(.cleartext) { stack in
            let credentials = stack.dataDirectory + "/cli/credentials.json"
            let password = "cli password 1234"
            #expect(
                try await Self.securepush(
                    ["register", "--username", "cli-ada", "--password", password], stack: stack,
                    credentials: credentials
                ).0 == 0)
            #expect(
                try await Self.securepush(
                    ["login", "--username", "cli-ada", "--password", password], stack: stack, credentials: credentials
                ).0 == 0)
            let listener = Task {
                try await Self.securepush(["listen", "--count", "1"], stack: stack, credentials: credentials)
            }
            // Wait (bounded) for listen to register its device.
            var stored: [String: Any] = [:]
            for _ in 0..<200 {
                if let data = FileManager.default.contents(atPath: credentials),
                    let json = try JSONSerialization.jsonObject(with: data) as? [String: Any], json["deviceId"] != nil
                {
                    stored = json
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(stored["sealed"] as? Bool == true)
            _ = try #require(stored["deviceId"] as? String)
            let key = credentials + ".device-key"
            #expect((try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int) == 0o600)

            let backend = try stack.backend()
            let userId = try #require((stored["session"] as? [String: Any])?["userId"] as? String)
            let sent = try await backend.send(.init(recipientId: userId, payload: "sealed for the CLI"))
            let (status, printed) = try await listener.value
            #expect(status == 0)
            // Standard output holds the payload alone: the registration and the connection's state go to standard
            // error.
            #expect(!printed.contains("registered direct device"))
            #expect(!printed.contains("connect"))
            #expect(printed.split(separator: "\n").count == 1, "\(printed)")
            #expect(printed.contains("\(sent.notificationId): sealed for the CLI"))

            // The session expires: the saved access token is stale and useless.
            var session = try #require(stored["session"] as? [String: Any])
            session["accessToken"] = "expired"
            session["accessTokenExpiresAt"] = "2001-01-01T00:00:00Z"
            stored["session"] = session
            try JSONSerialization.data(withJSONObject: stored).write(to: URL(fileURLWithPath: credentials))
            let (fetchStatus, fetched) = try await Self.securepush(
                ["fetch", sent.notificationId], stack: stack, credentials: credentials)
            #expect(fetchStatus == 0)
            #expect(fetched == "sealed for the CLI\n")
            await backend.shutdown()
        }
    }

    @Test("devices list shows listen's device; verify of no pending device is refused; remove unregisters it")
    func devicesCommands() async throws {
        try await TestStack.with(.cleartext) { stack in
            let credentials = stack.dataDirectory + "/cli/credentials.json"
            let password = "cli password 1234"
            for command in ["register", "login"] {
                #expect(
                    try await Self.securepush(
                        [command, "--username", "cli-devices", "--password", password], stack: stack,
                        credentials: credentials
                    ).0 == 0)
            }
            let device = try await Self.listenOnce(stack: stack, credentials: credentials)
            let (listed, lines) = try await Self.securepush(
                ["devices", "list"], stack: stack, credentials: credentials)
            #expect(listed == 0)
            #expect(lines.contains("\(device) direct \"securepush-cli\" (sealed)"))

            let (refused, _) = try await Self.securepush(
                ["devices", "verify", UUID().uuidString.lowercased(), "q3Vb0zYQm2xJ8kT4fP1wLg"], stack: stack,
                credentials: credentials)
            #expect(refused == 1)

            let (removed, said) = try await Self.securepush(
                ["devices", "remove", device], stack: stack, credentials: credentials)
            #expect(removed == 0)
            #expect(said.contains("removed device \(device)"))
            let (_, after) = try await Self.securepush(["devices", "list"], stack: stack, credentials: credentials)
            #expect(!after.contains(device))
            // `listen` registers a new device next time instead of streaming for the removed one.
            let saved = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: credentials)))
            #expect((saved as? [String: Any])?["deviceId"] == nil)
        }
    }

    @Test("signing in again as the same user keeps this machine's device; another user gets their own device and key")
    func reloginKeepsTheDevice() async throws {
        try await TestStack.with(.cleartext) { stack in
            let credentials = stack.dataDirectory + "/cli/credentials.json"
            let password = "cli password 1234"
            for (command, user) in [("register", "cli-same"), ("register", "cli-other"), ("login", "cli-same")] {
                #expect(
                    try await Self.securepush(
                        [command, "--username", user, "--password", password], stack: stack, credentials: credentials
                    ).0 == 0)
            }
            let device = try await Self.listenOnce(stack: stack, credentials: credentials)
            let key = try Data(contentsOf: URL(fileURLWithPath: credentials + ".device-key"))
            #expect(
                try await Self.securepush(
                    ["login", "--username", "cli-same", "--password", password], stack: stack, credentials: credentials
                ).0 == 0)
            #expect(try Self.saved(credentials)["deviceId"] as? String == device)
            #expect(try Data(contentsOf: URL(fileURLWithPath: credentials + ".device-key")) == key)
            // `listen` again streams for the same device: still one device.
            #expect(try await Self.listenOnce(stack: stack, credentials: credentials) == device)
            let (_, listed) = try await Self.securepush(["devices", "list"], stack: stack, credentials: credentials)
            #expect(listed.split(separator: "\n").count == 1, "\(listed)")

            #expect(
                try await Self.securepush(
                    ["login", "--username", "cli-other", "--password", password], stack: stack,
                    credentials: credentials
                ).0 == 0)
            #expect(try Self.saved(credentials)["deviceId"] == nil)
            #expect(!FileManager.default.fileExists(atPath: credentials + ".device-key"))
            let others = try await Self.listenOnce(stack: stack, credentials: credentials)
            #expect(others != device)
            #expect(try Data(contentsOf: URL(fileURLWithPath: credentials + ".device-key")) != key)
        }
    }

    @Test("a credentials file that cannot be read is an error naming it, never taken for a missing one")
    func unreadableCredentials() async throws {
        try await TestStack.with(.cleartext) { stack in
            // A directory where the file should be: unreadable as a file, even for root.
            let credentials = stack.dataDirectory + "/cli/credentials.json"
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
            let (status, _, errors) = try await Self.securepushWithErrors(
                ["devices", "list"], stack: stack, credentials: credentials)
            #expect(status == 3)
            #expect(errors.contains("error: cannot read the saved session in \(credentials)"), "\(errors)")
            #expect(!errors.contains("not signed in"), "\(errors)")
            // With --verbose, the detail says why.
            let (_, _, verbose) = try await Self.securepushWithErrors(
                ["devices", "list", "--verbose"], stack: stack, credentials: credentials)
            #expect(verbose.contains("it is a directory"), "\(verbose)")
        }
    }

    /// The credentials file as JSON.
    static func saved(_ credentials: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: credentials)))
            as? [String: Any]
            ?? [:]
    }

    /// Runs `listen` until it registered its device (then stops it); the device id saved.
    static func listenOnce(stack: TestStack, credentials: String) async throws -> String {
        let listener = Task {
            try await Self.securepush(["listen", "--count", "1"], stack: stack, credentials: credentials)
        }
        defer { listener.cancel() }
        for _ in 0..<200 {
            if let data = FileManager.default.contents(atPath: credentials),
                let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let deviceId = json["deviceId"] as? String
            {
                // Let it finish: one notification ends it.
                let userId = try #require((json["session"] as? [String: Any])?["userId"] as? String)
                let backend = try stack.backend()
                _ = try? await backend.send(.init(recipientId: userId, payload: "to end listen"))
                await backend.shutdown()
                _ = try await listener.value
                return deviceId
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CancellationError()
    }
}
