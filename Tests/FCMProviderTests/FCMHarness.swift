import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// A running FCM mock and an `FCMProvider` configured (through its environment variables) to use it.
struct FCMHarness: Sendable {
    let provider: FCMProvider
    let mock: FCMMock
    let clock: TestClock
    /// The mock's `https://127.0.0.1:<port>`.
    let baseURL: String
    /// The variables the provider was configured from.
    let environment: [String: String]

    /// A job for `registrationToken` expiring `expiresIn` seconds from the test clock's now.
    func job(
        _ registrationToken: String? = "fcm-token-1", id: String = "ntf_01HZX3Q", expiresIn: TimeInterval = 3600
    ) -> DeliveryJob {
        DeliveryJob(
            sequence: 1, notificationID: id, deviceID: "dev_fcm", platform: .fcm, deviceToken: registrationToken,
            status: .queued, attempts: 0, expiresAt: clock.now.addingTimeInterval(expiresIn))
    }
}

/// Runs `body` against a fresh mock FCM over HTTPS (a test CA) and a provider read from `SECUREPUSH_FCM_*`.
///
/// - Parameters:
///   - environment: extra or replacement variables (e.g. a dead `SECUREPUSH_FCM_URL`).
///   - tokenURI: replaces the key file's `token_uri` (`{base}` stands for the mock's base URL).
///   - connectTimeout: how long the provider keeps trying to connect (short for dead-endpoint tests).
func withFCM<T>(
    environment: [String: String] = [:],
    tokenURI: String = "{base}\(FCMMock.tokenPath)",
    connectTimeout: Duration = .seconds(10),
    _ body: (FCMHarness) async throws -> T
) async throws -> T {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let clock = TestClock()
    var account = TestServiceAccount(tokenURI: "")
    let mock = FCMMock(account: account, now: { clock.now })
    return try await withMockServer(certificates: certificates, router: mock.router()) { port in
        let baseURL = "https://127.0.0.1:\(port)"
        await mock.setBaseURL(baseURL)
        account.tokenURI = tokenURI.replacingOccurrences(of: "{base}", with: baseURL)
        let keyFile = try account.write()
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        var variables = [
            "SECUREPUSH_FCM_CREDENTIALS_FILE": keyFile,
            "SECUREPUSH_FCM_URL": baseURL,
            "SECUREPUSH_FCM_CA_FILE": certificates.caCertificatePath,
        ]
        variables.merge(environment) { $1 }
        var configuration = try #require(try FCMConfiguration.fromEnvironment(ServiceEnvironment(variables)))
        configuration.connectTimeout = connectTimeout
        let provider = try FCMProvider(configuration: configuration, logger: .quiet, now: { clock.now })
        let harness = FCMHarness(
            provider: provider, mock: mock, clock: clock, baseURL: baseURL, environment: variables)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(harness))
        } catch {
            result = .failure(error)
        }
        await provider.shutdown()
        return try result.get()
    }
}
