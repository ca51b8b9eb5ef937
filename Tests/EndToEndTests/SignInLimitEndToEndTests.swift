import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Sign-in limits against the running stack, over real sockets from distinct loopback addresses.
@Suite("Sign-in limits over the wire")
struct SignInLimitEndToEndTests {
    static let dispatchSecret = "dispatch-secret-for-tests-0123456789"

    /// Calls `method` on auth from the loopback address `source`, with extra headers; returns the response body.
    static func call(
        _ stack: TestStack, _ method: String, _ params: String, from source: String, headers: [String] = []
    ) async throws -> String {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let result = try await Curl.run(
            ["--http2-prior-knowledge", "--interface", source, "-H", "content-type: application/json"]
                + headers.flatMap { ["-H", $0] } + ["-d", body, "\(stack.stack.authURL)/rpc"])
        #expect(result.status == 200)
        return result.body
    }

    static func clientToken(_ secret: String) -> String {
        #"{"clientId":"push-dispatch","clientSecret":"\#(secret)"}"#
    }

    @Test("an outsider's wrong client secrets never stop push-dispatch's token; spoofed X-Forwarded-For is ignored")
    func clientTokenFromAnotherAddress() async throws {
        try await TestStack.with(
            .cleartext,
            extra: ["SECUREPUSH_LOGIN_MAX_FAILURES": "3", "SECUREPUSH_TRUSTED_PROXIES": "127.0.0.2/32"]
        ) { stack in
            // 127.0.0.3 is no proxy: a different X-Forwarded-For on each call must not give it fresh counters.
            var bodies: [String] = []
            for index in 0..<5 {
                bodies.append(
                    try await Self.call(
                        stack, "auth.clientToken", Self.clientToken("wrong"), from: "127.0.0.3",
                        headers: ["X-Forwarded-For: 198.51.100.\(index)"]))
            }
            #expect(bodies.prefix(3).allSatisfy { $0.contains("-32001") })
            #expect(bodies.suffix(2).allSatisfy { $0.contains("-32029") && $0.contains("retryAfterSeconds") })
            let right = try await Self.call(
                stack, "auth.clientToken", Self.clientToken(Self.dispatchSecret), from: "127.0.0.1")
            #expect(right.contains("accessToken"))

            // 127.0.0.2 is a trusted proxy: its X-Forwarded-For names the client.
            for _ in 0..<3 {
                let body = try await Self.call(
                    stack, "auth.clientToken", Self.clientToken("wrong"), from: "127.0.0.2",
                    headers: ["X-Forwarded-For: 203.0.113.50, 198.51.100.7"])
                #expect(body.contains("-32001"))
            }
            let refused = try await Self.call(
                stack, "auth.clientToken", Self.clientToken(Self.dispatchSecret), from: "127.0.0.2",
                headers: ["X-Forwarded-For: 198.51.100.7"])
            #expect(refused.contains("-32029"))
            // The client's own Forwarded, passed through by a proxy that appends X-Forwarded-For (nginx, HAProxy),
            // names no one: only the configured header counts (issue 23).
            let spoofed = try await Self.call(
                stack, "auth.clientToken", Self.clientToken(Self.dispatchSecret), from: "127.0.0.2",
                headers: ["Forwarded: for=198.51.100.8", "X-Forwarded-For: 198.51.100.7"])
            #expect(spoofed.contains("-32029"))
            let proxied = try await Self.call(
                stack, "auth.clientToken", Self.clientToken(Self.dispatchSecret), from: "127.0.0.2",
                headers: ["X-Forwarded-For: 198.51.100.8"])
            #expect(proxied.contains("accessToken"))
        }
    }

    @Test("an outsider's wrong passwords never refuse the right password from another address")
    func loginFromAnotherAddress() async throws {
        try await TestStack.with(.cleartext, extra: ["SECUREPUSH_LOGIN_MAX_FAILURES": "3"]) { stack in
            let account = #"{"username":"alice","password":"correct horse"}"#
            #expect(try await Self.call(stack, "auth.register", account, from: "127.0.0.1").contains("userId"))
            var last = ""
            for _ in 0..<4 {
                last = try await Self.call(
                    stack, "auth.login", #"{"username":"alice","password":"wrong password"}"#, from: "127.0.0.2")
            }
            #expect(last.contains("-32029"))
            #expect(try await Self.call(stack, "auth.login", account, from: "127.0.0.2").contains("-32029"))
            #expect(try await Self.call(stack, "auth.login", account, from: "127.0.0.1").contains("refreshToken"))
        }
    }
}

@Suite("Closed self-registration")
struct ClosedRegistrationEndToEndTests {
    @Test("SECUREPUSH_SELF_REGISTRATION=false refuses auth.register; `securepush users create` makes accounts instead")
    func closedRegistration() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent(
            "securepush-users-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let status = try await Self.securepush([
            "users", "create", "--username", "alice", "--password", "correct horse", "--data-dir", directory,
        ])
        #expect(status == 0)
        try await TestStack.with(
            .cleartext, extra: ["SECUREPUSH_DATA_DIR": directory, "SECUREPUSH_SELF_REGISTRATION": "false"]
        ) { stack in
            let refused = try await SignInLimitEndToEndTests.call(
                stack, "auth.register", #"{"username":"mallory","password":"correct horse"}"#, from: "127.0.0.1")
            #expect(refused.contains("-32003"))
            #expect(refused.contains("self-registration is closed"))
            let signedIn = try await SignInLimitEndToEndTests.call(
                stack, "auth.login", #"{"username":"alice","password":"correct horse"}"#, from: "127.0.0.1")
            #expect(signedIn.contains("refreshToken"))
        }
    }

    /// Runs the built `securepush` CLI with `arguments` and `extra` `SECUREPUSH_*` variables; returns its exit status.
    static func securepush(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> Int32 {
        let process = Process()
        process.executableURL = ServiceProcess.buildDirectory.appendingPathComponent("securepush")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SECUREPUSH_") }
        environment["SECUREPUSH_BCRYPT_COST"] = "10"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try await process.runToExit()
        return process.terminationStatus
    }
}
