import APNsMock
import DispatchService
import Foundation
import MetricsTestKit
import TestSupport
import Testing

@Suite("APNs answers counted by status and reason")
struct APNsResponseMetricsTests {
    /// `securepush_provider_responses_total{platform="apns",status,reason}` as `metrics` recorded it (0 when absent).
    static func responses(_ metrics: TestMetrics, status: String, reason: String) -> Int64 {
        let counter = try? metrics.expectCounter(
            ProviderResponses.label, [("platform", "apns"), ("status", status), ("reason", reason)])
        return counter?.totalValue ?? 0
    }

    @Test("each answer counts once by status and Apple's reason; a reason Apple does not document counts as other")
    func answers() async throws {
        try await withAPNsMock { mock in
            let metrics = TestMetrics()
            let responses = ProviderResponses(platform: .apns, factory: metrics)
            let token = deviceToken(1)
            mock.state.script(
                token,
                [
                    .badDeviceToken, .success, APNsMockAnswer(status: 400, reason: "user-4711 \(UUID())"),
                    APNsMockAnswer(status: 418),
                ])
            try await withProvider(mock.configuration()) { provider in
                for _ in 0..<4 { _ = await provider.deliver(makeJob(token: token), responses: responses) }
            }
            #expect(Self.responses(metrics, status: "400", reason: "BadDeviceToken") == 1)
            #expect(Self.responses(metrics, status: "200", reason: "none") == 1)
            #expect(Self.responses(metrics, status: "400", reason: "other") == 1)
            #expect(Self.responses(metrics, status: "4xx", reason: "none") == 1)
            #expect(metrics.counters.count == 4, "no other series: \(metrics.counters.map(\.dimensions))")
        }
    }

    @Test("an expired provider token and the retry with a fresh one are two answers")
    func tokenRefreshCountsBoth() async throws {
        let clock = TestClock()
        try await withAPNsMock(clock: clock) { mock in
            let metrics = TestMetrics()
            let token = deviceToken(2)
            mock.state.script(token, [.expiredProviderToken, .success])
            let outcome = try await withProvider(mock.configuration(), clock: clock) { provider in
                // A token is replaced only once it is 20 minutes old.
                _ = await provider.deliver(makeJob(token: deviceToken(5)))
                clock.advance(by: 30 * 60)
                return await provider.deliver(
                    makeJob(token: token), responses: ProviderResponses(platform: .apns, factory: metrics))
            }
            #expect(outcome == .sent)
            #expect(Self.responses(metrics, status: "403", reason: "ExpiredProviderToken") == 1)
            #expect(Self.responses(metrics, status: "200", reason: "none") == 1)
        }
    }

    @Test("no answer (APNs unreachable) counts as status error; a job refused before sending counts nothing")
    func transportFailure() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let configuration = try await withAPNsMock(certificates: certificates) { $0.configuration() }
        let metrics = TestMetrics()
        let responses = ProviderResponses(platform: .apns, factory: metrics)
        try await withProvider(configuration) { provider in
            _ = await provider.deliver(makeJob(token: deviceToken(3)), responses: responses)
            var malformed = makeJob(token: deviceToken(3))
            malformed.deviceToken = "not hex"
            _ = await provider.deliver(malformed, responses: responses)
        }
        #expect(Self.responses(metrics, status: "error", reason: "none") == 1)
        #expect(metrics.counters.count == 1)
    }
}
