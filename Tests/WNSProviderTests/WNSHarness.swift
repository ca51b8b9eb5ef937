import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// A running WNS mock and a `WNSProvider` configured (through its environment variables) to use it.
struct WNSHarness: Sendable {
    let provider: WNSProvider
    let mock: WNSMock
    let clock: TestClock
    /// The mock's `https://127.0.0.1:<port>`.
    let baseURL: String

    /// A channel URI on the mock, like WNS's `https://db5.notify.windows.com/w/?token=…`.
    func channel(_ token: String = "AwYAAAD%2bOHp6XwK3Nt2cdfN5YAs%3d") -> String {
        "\(baseURL)/w/?token=\(token)"
    }

    /// A job for `channelURI` (default: `channel()`) expiring `expiresIn` seconds from the test clock's now.
    func job(_ channelURI: String? = nil, id: String = "ntf_01HZX3Q", expiresIn: TimeInterval = 3600) -> DeliveryJob {
        DeliveryJob(
            sequence: 1, notificationID: id, deviceID: "dev_wns", platform: .wns,
            deviceToken: channelURI ?? channel(), status: .queued, attempts: 0,
            expiresAt: clock.now.addingTimeInterval(expiresIn))
    }
}

/// Runs `body` against a fresh mock WNS over HTTPS (a test CA) and a provider read from `SECUREPUSH_WNS_*`
/// (`SECUREPUSH_WNS_ALLOW_ANY_HOST=1`, since the mock is not on notify.windows.com).
func withWNS<T>(
    environment: [String: String] = [:],
    connectTimeout: Duration = .seconds(10),
    _ body: (WNSHarness) async throws -> T
) async throws -> T {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let clock = TestClock()
    let mock = WNSMock(now: { clock.now })
    return try await withMockServer(certificates: certificates, router: mock.router()) { port in
        let baseURL = "https://127.0.0.1:\(port)"
        var variables = [
            "SECUREPUSH_WNS_CLIENT_ID": WNSMock.clientID,
            "SECUREPUSH_WNS_CLIENT_SECRET": WNSMock.clientSecret,
            "SECUREPUSH_WNS_TOKEN_URL": baseURL + WNSMock.tokenPath,
            "SECUREPUSH_WNS_CA_FILE": certificates.caCertificatePath,
            "SECUREPUSH_WNS_ALLOW_ANY_HOST": "1",
        ]
        variables.merge(environment) { $1 }
        var configuration = try #require(try WNSConfiguration.fromEnvironment(ServiceEnvironment(variables)))
        configuration.connectTimeout = connectTimeout
        let provider = try WNSProvider(configuration: configuration, logger: .quiet, now: { clock.now })
        let harness = WNSHarness(provider: provider, mock: mock, clock: clock, baseURL: baseURL)
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

/// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}
