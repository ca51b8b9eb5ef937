import Foundation
import Logging
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The bound on password hashing against a real auth process. The flood and the sign-in compete for the machine as
/// they would in production; measured in the test process instead, the wall clock also counted every other test of
/// the suite queued on the same two cooperative threads (the counted bound is `PasswordHashingBoundTests`).
@Suite("A bcrypt flood over the wire")
struct PasswordFloodEndToEndTests {
    let logger = Logger(label: "flood-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a flood of 100-call auth.login batches from one address leaves a sign-in from another answered within 2 s")
    func floodLeavesSignIn() async throws {
        let directory = try TemporaryDirectory(prefix: "flood")
        defer { directory.remove() }
        let processes = ServiceProcesses(
            environment: [
                "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_BCRYPT_COST": "10",
                // Only the hashing bound stands between the flood and bcrypt: no failure or request limits.
                "SECUREPUSH_LOGIN_MAX_FAILURES": "0", "SECUREPUSH_AUTH_RATE_LIMIT": "0",
                // One hash per address: on two cores the flood holds one and the sign-in never waits behind a guess.
                "SECUREPUSH_BCRYPT_PER_ADDRESS": "1",
                // The test's clients all connect from 127.0.0.1, as through a proxy: X-Forwarded-For names each one.
                "SECUREPUSH_TRUSTED_PROXIES": "127.0.0.1/32",
            ], logger: logger)
        do {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
            let account = #"{"username":"alice","password":"correct horse"}"#
            #expect(try await Self.call(auth, "auth.register", account, from: Self.rightfulUser).contains("userId"))

            let batch = directory.file("batch.json")
            let calls = (0..<100).map {
                #"{"jsonrpc":"2.0","id":\#($0),"method":"auth.login","params":{"username":"alice","password":"guess-\#($0)"}}"#
            }
            try Data(("[" + calls.joined(separator: ",") + "]").utf8).write(to: URL(fileURLWithPath: batch))
            let flood = try FloodProcess(batchFile: batch, url: "\(auth.url)/rpc", from: Self.outsider)

            // The flood is on once the gate refuses its guesses.
            let refusing = await eventually(timeout: .seconds(10)) {
                (try? await Self.refusedLogins(auth)).map { $0 > 0 } ?? false
            }
            #expect(refusing, "the flood never filled the outsider's share")

            let started = ContinuousClock.now
            let signedIn = try await Self.call(auth, "auth.login", account, from: Self.rightfulUser)
            let elapsed = ContinuousClock.now - started
            #expect(signedIn.contains("accessToken"), "\(signedIn)")
            #expect(elapsed < .seconds(2), "the sign-in took \(elapsed) during the flood")
            #expect(flood.isRunning, "the flood ended before the sign-in was measured")
            await flood.stop()
            await processes.stopAll()
        } catch {
            await processes.stopAll(signal: SIGKILL)
            throw error
        }
    }

    /// The flood's client address and the rightful user's, as the trusted proxy names them.
    static let outsider = "198.51.100.7"
    static let rightfulUser = "203.0.113.9"

    /// Calls `method` on auth for the client at `address`; returns the response body.
    static func call(_ auth: ServiceProcess, _ method: String, _ params: String, from address: String) async throws
        -> String
    {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let result = try await Curl.run(
            [
                "--http2-prior-knowledge", "-H", "X-Forwarded-For: \(address)", "-H", "content-type: application/json",
                "-d", body, "\(auth.url)/rpc",
            ])
        #expect(result.status == 200)
        return result.body
    }

    /// `securepush_auth_logins_total{outcome="rate_limited"}` from auth's `/metrics`.
    static func refusedLogins(_ auth: ServiceProcess) async throws -> Int {
        let metrics = try await Curl.run(["--http2-prior-knowledge", "\(auth.url)/metrics"]).body
        let line = metrics.split(separator: "\n").first {
            $0.hasPrefix(#"securepush_auth_logins_total{outcome="rate_limited"} "#)
        }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    /// h2load posting one batch file to auth 2,000 times, 100 streams at once on one connection, for the client at
    /// `address`, until stopped or done (13 s on two cores in a debug build). Not curl: Debian's curl 7.88 in parallel
    /// mode fails all but the first 100 of 2,000 transfers with "Error in the HTTP2 framing layer" (against nghttpd
    /// too) and can be done before the sign-in is measured.
    final class FloodProcess: @unchecked Sendable {
        private let process = Process()
        private let exited: Task<Int32, Never>

        init(batchFile: String, url: String, from address: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/h2load")
            process.arguments = [
                "-n", "2000", "-c", "1", "-m", "100", "-d", batchFile, "-H", "content-type: application/json", "-H",
                "x-forwarded-for: \(address)", url,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            exited = try process.runInBackground()
        }

        var isRunning: Bool { process.isRunning }

        /// Kills h2load and waits for it to exit.
        func stop() async {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            _ = await exited.value
        }
    }
}
