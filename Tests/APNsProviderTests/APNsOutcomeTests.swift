import APNsMock
import DispatchService
import Foundation
import TestSupport
import Testing

@Suite("APNs answers become delivery outcomes")
struct APNsOutcomeTests {
    /// Every documented answer the provider must tell apart, and what it must make of it.
    static let cases: [(APNsMockAnswer, DeliveryOutcome)] = [
        (.success, .sent),
        (
            .unregistered(since: Date(timeIntervalSince1970: 1_800_000_000)),
            .deactivateIfRegisteredBefore(Date(timeIntervalSince1970: 1_800_000_000), reason: "Unregistered")
        ),
        (APNsMockAnswer(status: 410, reason: "Unregistered"), .deactivate(reason: "Unregistered")),
        (APNsMockAnswer(status: 410, reason: "ExpiredToken"), .deactivate(reason: "ExpiredToken")),
        (.badDeviceToken, .deactivate(reason: "BadDeviceToken")),
        (.deviceTokenNotForTopic, .deactivate(reason: "DeviceTokenNotForTopic")),
        (.badTopic, .failed(reason: "BadTopic")),
        (.invalidProviderToken, .failed(reason: "InvalidProviderToken")),
        (.payloadTooLarge, .failed(reason: "PayloadTooLarge")),
        (APNsMockAnswer(status: 404), .failed(reason: "HTTP 404")),
        (.tooManyRequests, .retry(after: .zero, reason: "TooManyRequests")),
        (.tooManyProviderTokenUpdates, .retry(after: .zero, reason: "TooManyProviderTokenUpdates")),
        (
            APNsMockAnswer(status: 429, reason: "TooManyRequests", retryAfter: "30"),
            .retry(after: .seconds(30), reason: "TooManyRequests")
        ),
        (.internalServerError, .retry(after: .zero, reason: "InternalServerError")),
        (.serviceUnavailable, .retry(after: .zero, reason: "ServiceUnavailable")),
        (
            APNsMockAnswer(status: 503, reason: "Shutdown", retryAfter: "120"),
            .retry(after: .seconds(120), reason: "Shutdown")
        ),
    ]

    @Test("each documented APNs answer maps to its delivery outcome, in one request", arguments: cases)
    func mapping(answer: APNsMockAnswer, expected: DeliveryOutcome) async throws {
        try await withAPNsMock { mock in
            let token = deviceToken(1)
            mock.state.script(token, [answer])
            let outcome = try await withProvider(mock.configuration()) { provider in
                await provider.deliver(makeJob(token: token))
            }
            #expect(outcome == expected)
            let requests = mock.state.requests
            #expect(requests.count == 1)
            #expect(requests.first?.answer == answer)
        }
    }

    @Test("a Retry-After HTTP date becomes the delay until that date")
    func retryAfterDate() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        try await withAPNsMock(clock: clock) { mock in
            let token = deviceToken(2)
            // 1_800_000_090 is Fri, 15 Jan 2027 08:01:30 GMT: 90 seconds after the provider's clock.
            mock.state.script(
                token,
                [APNsMockAnswer(status: 503, reason: "ServiceUnavailable", retryAfter: "Fri, 15 Jan 2027 08:01:30 GMT")]
            )
            let outcome = try await withProvider(mock.configuration(), clock: clock) { provider in
                await provider.deliver(makeJob(token: token))
            }
            #expect(outcome == .retry(after: .seconds(90), reason: "ServiceUnavailable"))
        }
    }

    @Test(
        "a job without a well-formed device token fails without contacting APNs",
        arguments: [nil, "", "../../3/device/" + String(repeating: "a", count: 64)]
    )
    func malformedToken(token: String?) async throws {
        try await withAPNsMock { mock in
            var job = makeJob(token: deviceToken(3))
            job.deviceToken = token
            let outcome = try await withProvider(mock.configuration()) { provider in
                await provider.deliver(job)
            }
            #expect(outcome == .failed(reason: "the device has no valid APNs token"))
            #expect(mock.state.requests.isEmpty)
        }
    }

    @Test("when APNs cannot be reached the delivery is retried, not failed")
    func unreachable() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let configuration = try await withAPNsMock(certificates: certificates) { $0.configuration() }
        // The mock has stopped: nothing listens on its port any more.
        let outcome = try await withProvider(configuration) { provider in
            await provider.deliver(makeJob(token: deviceToken(4)))
        }
        guard case .retry(let after, let reason) = outcome else {
            Issue.record("expected retry, got \(outcome)")
            return
        }
        #expect(after == .zero)
        #expect(reason.contains("unreachable"))
    }
}
