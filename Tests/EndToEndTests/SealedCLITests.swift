import ChildProcesses
import Foundation
import SecurePushClient
import SharedModels
import Testing

@Suite("The CLI as a sealed device")
struct SealedCLITests {
    /// Runs the built `securepush` CLI against `stack` with the credentials at `credentials`; its status and output.
    static func securepush(_ arguments: [String], stack: TestStack, credentials: String) async throws -> (
        Int32, String
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
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try await process.runToExit()
        return (
            process.terminationStatus,
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
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
            let deviceId = try #require(stored["deviceId"] as? String)
            let key = credentials + ".device-key"
            #expect((try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int) == 0o600)

            let backend = try stack.backend()
            let userId = try #require((stored["session"] as? [String: Any])?["userId"] as? String)
            let sent = try await backend.send(.init(recipientId: userId, payload: "sealed for the CLI"))
            let (status, printed) = try await listener.value
            #expect(status == 0)
            #expect(printed.contains("registered direct device \(deviceId) (sealed)"))
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
}
