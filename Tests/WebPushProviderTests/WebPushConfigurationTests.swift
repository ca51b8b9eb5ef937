import Crypto
import Foundation
import ServiceCore
import TestSupport
import Testing

@testable import DispatchService

@Suite("Web Push configuration")
struct WebPushConfigurationTests {
    /// Made with `openssl ecparam -name prime256v1 -genkey -noout` (SEC1 "EC PRIVATE KEY"), as README suggests.
    static let sec1PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEINEMUQ3rOuuD+6ITQ2n0wxxeDXFXQjocoxkSuEROkg3ioAoGCCqGSM49
        AwEHoUQDQgAEmM/Ms0EI1ONG1Pwg35c2aWZzUYnujbt4lESiWLSVOzu9xj0z8gf0
        sIdJvvTHnONRzzb3bSetMh7KENXv+SoE8Q==
        -----END EC PRIVATE KEY-----
        """
    /// Its public key as `openssl ec -pubout` gives it, base64url.
    static let sec1PublicKey = "BJjPzLNBCNTjRtT8IN-XNmlmc1GJ7o27eJREoli0lTs7vcY9M_IH9LCHSb70x5zjUc82920nrTIeyhDV7_kqBPE"

    /// Writes `contents` to a new temporary file, runs `body`, deletes the file.
    static func withFile<T>(_ contents: String, _ body: (String) throws -> T) throws -> T {
        let path = TemporaryDirectory.processRootURL.appendingPathComponent("webpush-\(UUID().uuidString)").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    static func message(_ environment: [String: String]) -> String? {
        do {
            _ = try WebPushConfiguration.fromEnvironment(ServiceEnvironment(environment))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("Web Push is off when neither VAPID variable is set")
    func unconfigured() throws {
        #expect(try WebPushConfiguration.fromEnvironment(ServiceEnvironment([:])) == nil)
        #expect(try WebPushConfiguration.fromEnvironment(ServiceEnvironment(["SECUREPUSH_VAPID_SUBJECT": ""])) == nil)
    }

    @Test("a SEC1 PEM key and a subject configure Web Push with the documented defaults")
    func sec1Key() throws {
        try Self.withFile(Self.sec1PEM) { path in
            let configuration = try #require(
                try WebPushConfiguration.fromEnvironment(
                    ServiceEnvironment([
                        "SECUREPUSH_VAPID_PRIVATE_KEY_FILE": path, "SECUREPUSH_VAPID_SUBJECT": "mailto:ops@example.com",
                    ])))
            #expect(configuration.vapidPrivateKey.publicKey.x963Representation.base64URL == Self.sec1PublicKey)
            #expect(configuration.vapidSubject == "mailto:ops@example.com")
            #expect(configuration.urgency == .high)
            #expect(configuration.caFile == nil)
            #expect(configuration.allowedHosts == nil)
            #expect(configuration.applicationServerKey == Self.sec1PublicKey)
        }
    }

    @Test("a PKCS#8 PEM key, the urgency, a CA file and an allow-list are read")
    func everything() throws {
        let key = P256.Signing.PrivateKey()
        try Self.withFile(key.pemRepresentation) { keyPath in
            try Self.withFile("ca") { caPath in
                let configuration = try #require(
                    try WebPushConfiguration.fromEnvironment(
                        ServiceEnvironment([
                            "SECUREPUSH_VAPID_PRIVATE_KEY_FILE": keyPath,
                            "SECUREPUSH_VAPID_SUBJECT": "https://example.com/contact",
                            "SECUREPUSH_WEBPUSH_URGENCY": "very-low",
                            "SECUREPUSH_WEBPUSH_CA_FILE": caPath,
                            "SECUREPUSH_WEBPUSH_ALLOWED_HOSTS": " FCM.googleapis.com, push.services.mozilla.com ,",
                        ])))
                #expect(configuration.vapidPrivateKey.rawRepresentation == key.rawRepresentation)
                #expect(configuration.urgency == .veryLow)
                #expect(configuration.caFile == caPath)
                #expect(configuration.allowedHosts == ["fcm.googleapis.com", "push.services.mozilla.com"])
                #expect(configuration.allows(host: "updates.push.services.mozilla.com"))
                #expect(configuration.allows(host: "fcm.googleapis.com"))
                #expect(!configuration.allows(host: "evilfcm.googleapis.com.example"))
                #expect(!configuration.allows(host: "xpush.services.mozilla.com"))
            }
        }
    }

    @Test("half or wrong configurations are refused naming the variable")
    func refusals() throws {
        try Self.withFile(Self.sec1PEM) { key in
            try Self.withFile("not a key") { junk in
                let subject = "mailto:ops@example.com"
                let cases: [([String: String], String)] = [
                    (["SECUREPUSH_VAPID_SUBJECT": subject], "SECUREPUSH_VAPID_PRIVATE_KEY_FILE must be set"),
                    (["SECUREPUSH_VAPID_PRIVATE_KEY_FILE": key], "SECUREPUSH_VAPID_SUBJECT must be set"),
                    (
                        ["SECUREPUSH_VAPID_PRIVATE_KEY_FILE": key, "SECUREPUSH_VAPID_SUBJECT": "ops@example.com"],
                        "SECUREPUSH_VAPID_SUBJECT must be a mailto: or https: URI"
                    ),
                    (
                        ["SECUREPUSH_VAPID_PRIVATE_KEY_FILE": key, "SECUREPUSH_VAPID_SUBJECT": "http://example.com"],
                        "SECUREPUSH_VAPID_SUBJECT must be a mailto: or https: URI"
                    ),
                    (
                        ["SECUREPUSH_VAPID_PRIVATE_KEY_FILE": key + ".missing", "SECUREPUSH_VAPID_SUBJECT": subject],
                        "SECUREPUSH_VAPID_PRIVATE_KEY_FILE: cannot read"
                    ),
                    (
                        ["SECUREPUSH_VAPID_PRIVATE_KEY_FILE": junk, "SECUREPUSH_VAPID_SUBJECT": subject],
                        "is not a PEM P-256 private key"
                    ),
                    (
                        [
                            "SECUREPUSH_VAPID_PRIVATE_KEY_FILE": key, "SECUREPUSH_VAPID_SUBJECT": subject,
                            "SECUREPUSH_WEBPUSH_URGENCY": "urgent",
                        ],
                        "SECUREPUSH_WEBPUSH_URGENCY must be one of very-low, low, normal, high, got 'urgent'"
                    ),
                    (
                        [
                            "SECUREPUSH_VAPID_PRIVATE_KEY_FILE": key, "SECUREPUSH_VAPID_SUBJECT": subject,
                            "SECUREPUSH_WEBPUSH_CA_FILE": junk + ".missing",
                        ],
                        "SECUREPUSH_WEBPUSH_CA_FILE: cannot read"
                    ),
                    (
                        [
                            "SECUREPUSH_VAPID_PRIVATE_KEY_FILE": key, "SECUREPUSH_VAPID_SUBJECT": subject,
                            "SECUREPUSH_WEBPUSH_ALLOWED_HOSTS": " , ",
                        ],
                        "SECUREPUSH_WEBPUSH_ALLOWED_HOSTS must list at least one host"
                    ),
                ]
                for (environment, expected) in cases {
                    let message = Self.message(environment)
                    #expect(message?.contains(expected) == true, "\(environment): \(message ?? "accepted")")
                }
            }
        }
    }

    @Test("the provider refuses a CA file without certificates and a subject that is not a contact URI")
    func providerRefusals() throws {
        try Self.withFile("not a certificate") { junk in
            let badCA = WebPushConfiguration(
                vapidPrivateKey: P256.Signing.PrivateKey(), vapidSubject: "mailto:a@b.example", caFile: junk)
            let caError = try #require(throws: ConfigurationError.self) {
                try WebPushProvider(configuration: badCA, logger: .quiet)
            }
            #expect(caError.description.contains("SECUREPUSH_WEBPUSH_CA_FILE"))
        }
        let badSubject = WebPushConfiguration(vapidPrivateKey: P256.Signing.PrivateKey(), vapidSubject: "ops")
        let subjectError = try #require(throws: ConfigurationError.self) {
            try WebPushProvider(configuration: badSubject, logger: .quiet)
        }
        #expect(subjectError.description.contains("SECUREPUSH_VAPID_SUBJECT"))
    }
}
