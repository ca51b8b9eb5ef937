import Crypto
import Foundation
import SharedModels
import TestSupport

@testable import DispatchService

/// A provider and the push service it talks to, sharing one hand-moved clock.
struct WebPushHarness {
    static let subject = "mailto:ops@securepush.example"

    let provider: WebPushProvider
    let mock: MockPushService
    let clock: TestClock
    let vapidKey: P256.Signing.PrivateKey

    /// Runs `body` against a fresh mock push service and a provider trusting its CA; always shuts the provider down.
    static func run<T>(
        urgency: WebPushUrgency = .high,
        // The mock listens on loopback: an endpoint there is delivered to only when its host is allow-listed.
        allowedHosts: [String]? = ["127.0.0.1"],
        _ body: (WebPushHarness) async throws -> T
    ) async throws -> T {
        let clock = TestClock()
        let vapidKey = P256.Signing.PrivateKey()
        return try await withMockPushService(applicationServerKey: vapidKey.publicKey, clock: clock) { mock in
            let configuration = WebPushConfiguration(
                vapidPrivateKey: vapidKey, vapidSubject: subject, urgency: urgency, caFile: mock.caFile,
                allowedHosts: allowedHosts, requestTimeout: .seconds(10))
            let provider = try WebPushProvider(configuration: configuration, logger: .quiet, now: { clock.now })
            let harness = WebPushHarness(provider: provider, mock: mock, clock: clock, vapidKey: vapidKey)
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

    /// A job for `subscription`'s device as the worker would hand it over: the stored (validated) token and an id.
    func job(
        for subscription: TestSubscription, notificationID: String = "ntf-\(UUID().uuidString)",
        expiresIn: TimeInterval = 3600
    ) throws -> DeliveryJob {
        DeliveryJob(
            sequence: 1, notificationID: notificationID, deviceID: "dev-1", platform: .webpush,
            deviceToken: try provider.validateToken(subscription.token), status: .queued, attempts: 0,
            expiresAt: clock.now.addingTimeInterval(expiresIn))
    }
}
