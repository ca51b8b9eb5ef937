import APNsMock
import DispatchService
import Foundation
import ServiceCore
import TestSupport
import Testing

@Suite("APNs configuration from the environment")
struct APNsConfigurationTests {
    /// A `.p8` key file in a fresh temporary directory, removed by `remove()`.
    struct KeyFile {
        let key = APNsTestKey()
        let directory: URL
        var path: String { directory.appendingPathComponent("AuthKey_\(key.keyID).p8").path }

        init(contents: String? = nil) throws {
            directory = TemporaryDirectory.processRootURL.appendingPathComponent("apns-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data((contents ?? key.p8).utf8).write(to: URL(fileURLWithPath: path))
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        /// The four required variables.
        var environment: [String: String] {
            [
                "SECUREPUSH_APNS_KEY_FILE": path,
                "SECUREPUSH_APNS_KEY_ID": key.keyID,
                "SECUREPUSH_APNS_TEAM_ID": key.teamID,
                "SECUREPUSH_APNS_TOPIC": "com.example.app",
            ]
        }
    }

    @Test("APNs is off when none of its variables is set")
    func notConfigured() throws {
        #expect(try APNsConfiguration.fromEnvironment(ServiceEnvironment([:])) == nil)
        #expect(try APNsConfiguration.fromEnvironment(ServiceEnvironment(["SECUREPUSH_APNS_MODE": "alert"])) == nil)
    }

    @Test("the required variables give a production alert configuration with the documented defaults")
    func defaults() throws {
        let file = try KeyFile()
        defer { file.remove() }
        let configuration = try #require(try APNsConfiguration.fromEnvironment(ServiceEnvironment(file.environment)))
        #expect(configuration.baseURL == "https://api.push.apple.com")
        #expect(configuration.caFile == nil)
        #expect(configuration.keyID == file.key.keyID)
        #expect(configuration.teamID == file.key.teamID)
        #expect(configuration.topic == "com.example.app")
        #expect(configuration.signingKey.publicKey.rawRepresentation == file.key.privateKey.publicKey.rawRepresentation)
        #expect(configuration.mode == .alert)
        #expect(configuration.alertTitle == "New message")
        #expect(configuration.alertBody == "You have a new secure message")
        #expect(configuration.pingInterval == .seconds(60))
        #expect(configuration.tokenRefreshAge == .seconds(3000))
    }

    @Test("sandbox, URL override, CA file, mode, fallback text and ping interval are read")
    func options() throws {
        let file = try KeyFile()
        defer { file.remove() }
        var environment = file.environment
        environment["SECUREPUSH_APNS_ENVIRONMENT"] = "sandbox"
        environment["SECUREPUSH_APNS_MODE"] = "background"
        environment["SECUREPUSH_APNS_ALERT_TITLE"] = "Hi"
        environment["SECUREPUSH_APNS_ALERT_BODY"] = "Open the app"
        environment["SECUREPUSH_APNS_PING_INTERVAL"] = "0"
        var configuration = try #require(try APNsConfiguration.fromEnvironment(ServiceEnvironment(environment)))
        #expect(configuration.baseURL == "https://api.sandbox.push.apple.com")
        #expect(configuration.mode == .background)
        #expect(configuration.alertTitle == "Hi")
        #expect(configuration.alertBody == "Open the app")
        #expect(configuration.pingInterval == nil)

        environment["SECUREPUSH_APNS_URL"] = "https://127.0.0.1:8443"
        environment["SECUREPUSH_APNS_CA_FILE"] = file.path
        configuration = try #require(try APNsConfiguration.fromEnvironment(ServiceEnvironment(environment)))
        #expect(configuration.baseURL == "https://127.0.0.1:8443")
        #expect(configuration.caFile == file.path)
    }

    @Test(
        "a missing or wrong variable is refused with an error naming it",
        arguments: [
            ("SECUREPUSH_APNS_TOPIC", nil),
            ("SECUREPUSH_APNS_KEY_FILE", nil),
            ("SECUREPUSH_APNS_KEY_FILE", "/nonexistent/AuthKey.p8"),
            ("SECUREPUSH_APNS_KEY_ID", "KEY 1"),
            ("SECUREPUSH_APNS_TEAM_ID", "team-1"),
            ("SECUREPUSH_APNS_TOPIC", "com.example app"),
            ("SECUREPUSH_APNS_ENVIRONMENT", "staging"),
            ("SECUREPUSH_APNS_URL", "ftp://apns.example"),
            ("SECUREPUSH_APNS_CA_FILE", "/nonexistent/ca.pem"),
            ("SECUREPUSH_APNS_MODE", "silent"),
            ("SECUREPUSH_APNS_PING_INTERVAL", "often"),
        ] as [(String, String?)]
    )
    func refused(variable: String, value: String?) throws {
        let file = try KeyFile()
        defer { file.remove() }
        var environment = file.environment
        environment[variable] = value
        let error = #expect(throws: ConfigurationError.self) {
            _ = try APNsConfiguration.fromEnvironment(ServiceEnvironment(environment))
        }
        #expect(error?.description.contains(variable) == true, "\(error?.description ?? "no error")")
    }

    @Test("fallback text too long for APNs' 4096-byte payload is refused naming the text variables")
    func oversizedFallbackText() throws {
        let file = try KeyFile()
        defer { file.remove() }
        var environment = file.environment
        environment["SECUREPUSH_APNS_ALERT_BODY"] = String(repeating: "x", count: 4000)
        let error = #expect(throws: ConfigurationError.self) {
            _ = try APNsConfiguration.fromEnvironment(ServiceEnvironment(environment))
        }
        #expect(error?.description.contains("SECUREPUSH_APNS_ALERT_BODY") == true)
        // Background pushes carry no text: the same variables are accepted there.
        environment["SECUREPUSH_APNS_MODE"] = "background"
        #expect(try APNsConfiguration.fromEnvironment(ServiceEnvironment(environment))?.mode == .background)
    }

    @Test("a key file that is not a P-256 PEM key is refused naming SECUREPUSH_APNS_KEY_FILE")
    func badKeyFile() throws {
        let file = try KeyFile(contents: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
        defer { file.remove() }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try APNsConfiguration.fromEnvironment(ServiceEnvironment(file.environment))
        }
        #expect(error?.description.contains("SECUREPUSH_APNS_KEY_FILE") == true)
    }
}
