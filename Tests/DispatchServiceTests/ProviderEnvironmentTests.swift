import Crypto
import DispatchService
import Foundation
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Push providers from the environment")
struct ProviderEnvironmentTests {
    @Test("configured providers are created, unconfigured ones are left out")
    func configuredProviders() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("vapid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("vapid.pem").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)

        let providers = try await PushProviders.remoteProviders(
            environment: ServiceEnvironment([
                "SECUREPUSH_WNS_CLIENT_ID": "ms-app://s-1-15-2-test",
                "SECUREPUSH_WNS_CLIENT_SECRET": "wns-secret",
                "SECUREPUSH_VAPID_PRIVATE_KEY_FILE": keyFile,
                "SECUREPUSH_VAPID_SUBJECT": "mailto:ops@example.com",
            ]),
            logger: Logger(label: "test")
        )
        #expect(providers.map(\.platform) == [.wns, .webpush])
        for provider in providers { await provider.shutdown() }
    }

    @Test("a half-configured provider is refused with the variable it lacks")
    func halfConfigured() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await PushProviders.remoteProviders(
                environment: ServiceEnvironment(["SECUREPUSH_WNS_CLIENT_ID": "ms-app://s-1-15-2-test"]),
                logger: Logger(label: "test")
            )
        }
        #expect(error?.description.contains("SECUREPUSH_WNS_CLIENT_SECRET") == true)
    }
}
