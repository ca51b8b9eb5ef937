import Foundation
import HTTPTypes
import SharedModels
import TestSupport
import Testing

@testable import DispatchService

@Suite("Web Push delivery against a mock push service")
struct WebPushDeliveryTests {
    @Test("a delivery POSTs only the encrypted notification id, with TTL, Urgency and VAPID")
    func sendsOnlyTheID() async throws {
        try await WebPushHarness.run { harness in
            let browser = harness.mock.subscribe("alice")
            let job = try harness.job(for: browser, notificationID: "ntf-42", expiresIn: 3600)
            #expect(await harness.provider.deliver(job) == .sent)

            let received = harness.mock.received
            try #require(received.count == 1)
            #expect(received[0].problems == [])
            #expect(received[0].plaintext == Data(#"{"secureId":"ntf-42"}"#.utf8))
            #expect(received[0].ttl == 3600)
            #expect(received[0].urgency == "high")
        }
    }

    @Test("TTL is the whole seconds left until the notification expires, and 0 once it has")
    func ttlFollowsExpiry() async throws {
        try await WebPushHarness.run { harness async throws in
            let browser = harness.mock.subscribe("bob")
            #expect(try await harness.provider.deliver(harness.job(for: browser, expiresIn: 90.25)) == .sent)
            #expect(try await harness.provider.deliver(harness.job(for: browser, expiresIn: -5)) == .sent)
            #expect(harness.mock.received.map(\.ttl) == [91, 0])
            #expect(harness.mock.received.allSatisfy { $0.problems.isEmpty })
        }
    }

    @Test("the Urgency header follows the configuration")
    func urgencyIsConfigurable() async throws {
        try await WebPushHarness.run(urgency: .normal) { harness async throws in
            let browser = harness.mock.subscribe("carol")
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == .sent)
            #expect(harness.mock.received.map(\.urgency) == ["normal"])
        }
    }

    @Test("a send's priority overrides the configured Urgency; its collapse id is the Topic; none sends no Topic")
    func priorityAndTopic() async throws {
        try await WebPushHarness.run(urgency: .normal) { harness async throws in
            let browser = harness.mock.subscribe("erin")
            var urgent = try harness.job(for: browser, notificationID: "ntf-1")
            urgent.priority = .high
            urgent.collapseID = "balance-7_x"
            var calm = try harness.job(for: browser, notificationID: "ntf-2")
            calm.priority = .normal
            #expect(await harness.provider.deliver(urgent) == .sent)
            #expect(await harness.provider.deliver(calm) == .sent)
            #expect(try await harness.provider.deliver(harness.job(for: browser, notificationID: "ntf-3")) == .sent)
            #expect(harness.mock.received.map(\.urgency) == ["high", "normal", "normal"])
            #expect(harness.mock.received.map(\.topic) == ["balance-7_x", nil, nil])
            #expect(harness.mock.received.allSatisfy { $0.problems.isEmpty })
        }
    }

    @Test("an id filling exactly one 4096-byte message is sent; one byte more is refused without a request")
    func sizeLimit() async throws {
        try await WebPushHarness.run { harness in
            let browser = harness.mock.subscribe("dave")
            let envelope = #"{"secureId":""}"#.utf8.count
            let longest = String(repeating: "x", count: WebPushEncryption.maxPlaintextBytes - envelope)
            #expect(try await harness.provider.deliver(harness.job(for: browser, notificationID: longest)) == .sent)
            #expect(harness.mock.received.first?.plaintext?.count == WebPushEncryption.maxPlaintextBytes)

            let outcome = try await harness.provider.deliver(harness.job(for: browser, notificationID: longest + "x"))
            #expect(outcome == .failed(reason: "notification id too long for a Web Push message"))
            #expect(harness.mock.received.count == 1)
        }
    }

    static let outcomes: [(MockReply, DeliveryOutcome)] = [
        (MockReply(status: .ok), .sent),
        (MockReply(status: .accepted), .sent),
        (
            MockReply(status: .notFound, body: "no such subscription"),
            .deactivate(reason: "404 Not Found: no such subscription")
        ),
        (
            MockReply(status: .gone, body: #"{"errno":106,"message":"expired"}"#),
            .deactivate(reason: #"410 Gone: {"errno":106,"message":"expired"}"#)
        ),
        (MockReply(status: .contentTooLarge), .failed(reason: "413 Content Too Large")),
        (
            MockReply(status: .tooManyRequests, headers: [.retryAfter: "30"]),
            .retry(after: .seconds(30), reason: "429 Too Many Requests")
        ),
        (MockReply(status: .tooManyRequests), .retry(after: .zero, reason: "429 Too Many Requests")),
        (
            MockReply(status: .internalServerError, body: "boom\nagain"),
            .retry(after: .zero, reason: "500 Internal Server Error: boom again")
        ),
        (
            MockReply(status: .serviceUnavailable, headers: [.retryAfter: "7"]),
            .retry(after: .seconds(7), reason: "503 Service Unavailable")
        ),
        (
            MockReply(status: .badRequest, body: "UnsupportedContentEncoding"),
            .failed(reason: "400 Bad Request: UnsupportedContentEncoding")
        ),
        (MockReply(status: .unauthorized, body: "bad jwt"), .failed(reason: "401 Unauthorized: bad jwt")),
        (MockReply(status: .forbidden, body: "key mismatch"), .failed(reason: "403 Forbidden: key mismatch")),
        (
            MockReply(status: .temporaryRedirect, headers: [.location: "/push/elsewhere"]),
            .failed(reason: "307 Unexpected Status")
        ),
    ]

    @Test("every push service answer maps to its delivery outcome", arguments: outcomes)
    func outcomeMapping(reply: MockReply, expected: DeliveryOutcome) async throws {
        try await WebPushHarness.run { harness async throws in
            let browser = harness.mock.subscribe("erin")
            _ = harness.mock.subscribe("elsewhere")
            harness.mock.script("erin", reply)
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == expected)
            // Exactly one well-formed request: errors are not retried inside `deliver`, redirects not followed.
            #expect(harness.mock.received.map(\.subscription) == ["erin"])
            #expect(harness.mock.received.allSatisfy { $0.problems.isEmpty })
            // The scripted answer was used up; the subscription works again.
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == .sent)
        }
    }

    @Test("a push service whose certificate is not trusted gets nothing, and the delivery is retried")
    func untrustedCertificate() async throws {
        try await WebPushHarness.run { harness in
            let browser = harness.mock.subscribe("frank")
            let job = try harness.job(for: browser)
            let unrelatedCA = try TestCertificates.makeUnrelatedCA()
            defer { try? FileManager.default.removeItem(atPath: (unrelatedCA as NSString).deletingLastPathComponent) }
            let distrustful = try WebPushProvider(
                configuration: WebPushConfiguration(
                    vapidPrivateKey: harness.vapidKey, vapidSubject: WebPushHarness.subject, caFile: unrelatedCA,
                    allowedHosts: ["127.0.0.1"], requestTimeout: .seconds(10)),
                logger: .quiet)
            let outcome = await distrustful.deliver(job)
            await distrustful.shutdown()
            guard case .retry(let after, let reason) = outcome else {
                Issue.record("expected a retry, got \(outcome)")
                return
            }
            #expect(after == .zero)
            #expect(reason.hasPrefix("push service unreachable: "))
            #expect(harness.mock.received.isEmpty)
        }
    }

    @Test("with an allow-list, endpoints on other hosts are refused at registration and never contacted")
    func allowedHosts() async throws {
        try await WebPushHarness.run(allowedHosts: ["push.example.net"]) { harness in
            let browser = harness.mock.subscribe("grace")
            let error = try #require(throws: DispatchError.self) {
                try harness.provider.validateToken(browser.token)
            }
            #expect(error.rpcError.data == .object(["field": "token"]))
            #expect(error.rpcError.message.contains("'127.0.0.1' is not an allowed push service"))

            // A token stored before the list was configured is not delivered to either.
            let stored = try WebPushSubscription(token: browser.token).canonicalToken
            let job = DeliveryJob(
                sequence: 1, notificationID: "ntf-1", deviceID: "dev-1", platform: .webpush, deviceToken: stored,
                status: .queued, attempts: 0, expiresAt: harness.clock.now.addingTimeInterval(60))
            #expect(
                await harness.provider.deliver(job)
                    == .failed(reason: "endpoint host '127.0.0.1' is not in SECUREPUSH_WEBPUSH_ALLOWED_HOSTS"))
            #expect(harness.mock.received.isEmpty)
        }
        try await WebPushHarness.run(allowedHosts: ["127.0.0.1"]) { harness async throws in
            let browser = harness.mock.subscribe("grace")
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == .sent)
        }
    }

    @Test("a stored token that is not a subscription fails the delivery without a request")
    func unusableStoredToken() async throws {
        try await WebPushHarness.run { harness in
            let job = DeliveryJob(
                sequence: 1, notificationID: "ntf-1", deviceID: "dev-1", platform: .webpush, deviceToken: nil,
                status: .queued, attempts: 0, expiresAt: harness.clock.now.addingTimeInterval(60))
            guard case .failed(let reason) = await harness.provider.deliver(job) else {
                Issue.record("expected failed")
                return
            }
            #expect(reason.hasPrefix("stored subscription is unusable"))
            #expect(harness.mock.received.isEmpty)
        }
    }

    /// A remote provider has no `jobsQueued` to call any more (the type system now says it queues nothing itself:
    /// its delivery worker sends); what remains to check is the platform it serves.
    @Test("the provider serves webpush")
    func platform() async throws {
        try await WebPushHarness.run { harness in
            #expect(harness.provider.platform == .webpush)
            #expect(harness.mock.received.isEmpty)
        }
    }
}

extension HTTPField.Name {
    static let retryAfter = Self("Retry-After")!
}
