import Foundation
import Logging
import SoftHSMFixture
import TestSupport
import Testing

/// The services with their keys in a PKCS#11 module (SoftHSM2), as separate processes: each has a token of its own
/// (`SoftHSM.isolated()`), so a test can take it away.
@Suite("Keys in a PKCS#11 module, the services as processes")
struct HardwareModuleProcessTests {
    let logger = Logger(label: "hsm-process", factory: { _ in SwiftLogNoOpLogHandler() })

    /// `securepush hsm keygen` in the token: the CLI an operator uses.
    static func keygen(_ hsm: SoftHSM, _ label: String, type: String) async throws {
        let made = try await StoreKeysCLITests.securepush(
            ["hsm", "keygen", "--key", hsm.uri(label), "--type", type], environment: hsm.environment)
        #expect(made.status == 0, "\(made.output)")
    }

    /// The variables of a development auth-service in `directory` with both of its keys in the module.
    static func authEnvironment(_ hsm: SoftHSM, directory: String) -> [String: String] {
        hsm.environment.merging([
            "SECUREPUSH_DATA_DIR": directory, "SECUREPUSH_AUTH_SIGNING_KEY": hsm.uri("auth-signing"),
            "SECUREPUSH_AUDIT_KEY": hsm.uri("audit"), "SECUREPUSH_BCRYPT_COST": "10",
        ]) { _, new in new }
    }

    static func account(_ username: String) -> String { #"{"username":"\#(username)","password":"correct horse"}"# }

    /// auth-service with both keys made in `hsm`'s token, after one registration and one sign-in of `account`.
    func startAuthSigningIn(_ hsm: SoftHSM, directory: TemporaryDirectory, account: String) async throws
        -> ServiceProcess
    {
        try await Self.keygen(hsm, "auth-signing", type: "ec")
        try await Self.keygen(hsm, "audit", type: "ec")
        let auth = try await ServiceProcess.start(
            "auth-service", name: "auth", environment: Self.authEnvironment(hsm, directory: directory.path),
            portVariable: "SECUREPUSH_AUTH_PORT", logger: logger)
        #expect(try await Self.call(auth, "auth.register", account).contains("userId"))
        #expect(try await Self.call(auth, "auth.login", account).contains("accessToken"))
        return auth
    }

    static func call(_ service: ServiceProcess, _ method: String, _ params: String) async throws -> String {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        return try await Curl.run(
            ["--http2-prior-knowledge", "-H", "content-type: application/json", "-d", body, "\(service.url)/rpc"]
        ).body
    }

    @Test(
        "auth signs tokens and audit checkpoints in the module; `securepush audit verify` reads the public key there"
    )
    func keysInModule() async throws {
        let hsm = try SoftHSM.isolated()
        defer { hsm.remove() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let auth = try await startAuthSigningIn(hsm, directory: directory, account: Self.account("fern"))
        let health = try await Curl.run(["--http2-prior-knowledge", "\(auth.url)/health"])
        #expect(health.status == 200)
        #expect(health.body.contains(#""hsm":"ok""#), "\(health.body)")
        #expect(await auth.stop() == 0)

        // The checkpoint written at shutdown was signed in the module; the verifier finds its public half there.
        let verified = try await StoreKeysCLITests.securepush(
            ["audit", "verify", "--data-dir", directory.path, "--service", "auth"],
            environment: hsm.environment.merging(["SECUREPUSH_AUDIT_KEY": hsm.uri("audit")]) { _, new in new })
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("ok auth"), "\(verified.output)")
    }

    @Test("a token removed while auth runs: /health answers 503 naming hsm, signing refuses with -32050 naming hsm")
    func tokenRemoved() async throws {
        let hsm = try SoftHSM.isolated()
        defer { hsm.remove() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let account = Self.account("gail")
        let auth = try await startAuthSigningIn(hsm, directory: directory, account: account)

        try FileManager.default.removeItem(atPath: hsm.tokenDirectory)
        // A health answer is kept for a second (HardwareKeyProbe): the next one asks the module.
        try await Task.sleep(for: .milliseconds(1_100))
        let health = try await Curl.run(["--http2-prior-knowledge", "\(auth.url)/health"])
        #expect(health.status == 503)
        #expect(health.body.contains(#""hsm":"token 'securepush' no longer holds key"#), "\(health.body)")
        let refused = try await Self.call(auth, "auth.login", account)
        #expect(refused.contains(#""code":-32050"#), "\(refused)")
        #expect(refused.contains(#""dependency":"hsm""#), "\(refused)")
        // Never a fallback: no token was signed by anything else meanwhile.
        #expect(!refused.contains("accessToken"))

        _ = await auth.stop()
    }

    @Test(
        "each missing piece refuses the start with one line naming its variable",
        arguments: [
            ("no module", ["SECUREPUSH_PKCS11_MODULE": ""], "SECUREPUSH_PKCS11_MODULE must be set"),
            (
                "module missing", ["SECUREPUSH_PKCS11_MODULE": "/nonexistent/libsofthsm2.so"],
                "SECUREPUSH_PKCS11_MODULE '/nonexistent/libsofthsm2.so' cannot be loaded"
            ),
            ("no PIN file", ["SECUREPUSH_PKCS11_PIN_FILE": ""], "SECUREPUSH_PKCS11_PIN_FILE must be set"),
            (
                "PIN file missing", ["SECUREPUSH_PKCS11_PIN_FILE": "/nonexistent/pin"],
                "SECUREPUSH_PKCS11_PIN_FILE '/nonexistent/pin' cannot be read"
            ),
            ("wrong PIN", ["wrong-pin": "yes"], "SECUREPUSH_PKCS11_PIN_FILE: token 'securepush' refused the PIN"),
            (
                "token missing", ["SECUREPUSH_AUTH_SIGNING_KEY": "pkcs11:token=elsewhere;object=auth-signing"],
                "SECUREPUSH_AUTH_SIGNING_KEY: no token labelled 'elsewhere'"
            ),
            (
                "key missing", ["SECUREPUSH_AUTH_SIGNING_KEY": "pkcs11:token=securepush;object=missing"],
                "SECUREPUSH_AUTH_SIGNING_KEY: no private key 'missing'"
            ),
            (
                "audit key missing", ["SECUREPUSH_AUDIT_KEY": "pkcs11:token=securepush;object=missing"],
                "SECUREPUSH_AUDIT_KEY: no private key 'missing'"
            ),
        ])
    func refusals(name: String, change: [String: String], message: String) async throws {
        let hsm = try SoftHSM.isolated()
        defer { hsm.remove() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await Self.keygen(hsm, "auth-signing", type: "ec")
        try await Self.keygen(hsm, "audit", type: "ec")
        var environment = Self.authEnvironment(hsm, directory: directory.path)
            .merging(["SECUREPUSH_HOST": "127.0.0.1", "SECUREPUSH_AUTH_PORT": "0"]) { _, new in new }
        for (variable, value) in change where variable != "wrong-pin" { environment[variable] = value }
        if change["wrong-pin"] != nil {
            let pin = directory.file("wrong-pin")
            try "0000\n".write(toFile: pin, atomically: true, encoding: .utf8)
            environment["SECUREPUSH_PKCS11_PIN_FILE"] = pin
        }
        let (status, output) = try await ServiceProcess.runUntilExit("auth-service", environment: environment)
        #expect(status == 1, "\(name): \(output)")
        let lines = output.split(separator: "\n").filter { $0.hasPrefix("auth-service: configuration error: ") }
        #expect(lines.count == 1, "\(name): \(output)")
        #expect(lines.first?.contains(message) == true, "\(name): \(output)")
    }

    @Test(
        "`securepush store-keys rotate` with the module on writes wrapped keys only; without it the file opens nothing")
    func storeKeysRotate() async throws {
        let hsm = try SoftHSM.isolated()
        defer { hsm.remove() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await Self.keygen(hsm, "store-wrap", type: "aes")
        let environment = hsm.environment.merging(["SECUREPUSH_STORE_KEY_WRAPPING_KEY": hsm.uri("store-wrap")]) {
            _, new in new
        }
        for _ in 0..<2 {
            let rotated = try await StoreKeysCLITests.securepush(
                ["store-keys", "rotate", "--data-dir", directory.path], environment: environment)
            #expect(rotated.status == 0, "\(rotated.output)")
        }
        let keys = try String(contentsOfFile: directory.file("store-keys"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(keys.count == 2, "\(keys)")
        #expect(keys.allSatisfy { $0.split(separator: " ").last?.hasPrefix("wrapped:") == true }, "\(keys)")
        // The second run read the first key through the module; without the module the file opens nothing.
        let without = try await StoreKeysCLITests.securepush(["store-keys", "rotate", "--data-dir", directory.path])
        #expect(without.status != 0)
        #expect(without.output.contains("set SECUREPUSH_STORE_KEY_WRAPPING_KEY"), "\(without.output)")
    }

    @Test("the store refuses to start when its wrapping key is not in the module")
    func storeRefusal() async throws {
        let hsm = try SoftHSM.isolated()
        defer { hsm.remove() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, output) = try await ServiceProcess.runUntilExit(
            "store-service",
            environment: hsm.environment.merging([
                "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_HOST": "127.0.0.1", "SECUREPUSH_STORE_PORT": "0",
                "SECUREPUSH_STORE_KEY_WRAPPING_KEY": hsm.uri("store-wrap"),
            ]) { _, new in new })
        #expect(status == 1, "\(output)")
        #expect(output.contains("SECUREPUSH_STORE_KEY_WRAPPING_KEY: no secret key 'store-wrap'"), "\(output)")
    }
}
