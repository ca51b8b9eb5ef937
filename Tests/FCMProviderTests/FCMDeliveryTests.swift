import DispatchService
import Foundation
import TestSupport
import Testing

@Suite("FCM delivery")
struct FCMDeliveryTests {
    @Test("a delivery posts exactly the data-only message with the id, and nothing of the payload")
    func exactMessage() async throws {
        try await withFCM { fcm in
            let outcome = await fcm.provider.deliver(fcm.job("fcm-token-1", id: "ntf_01HZX3Q", expiresIn: 3600))
            #expect(outcome == .sent)
            let sends = await fcm.mock.sends
            let send = try #require(sends.first)
            #expect(sends.count == 1)
            #expect(send.request.path == "/v1/projects/securepush-test/messages:send")
            #expect(
                send.request.headers["authorization"] == "Bearer \(try #require(await fcm.mock.issuedTokens.first))")
            #expect(send.request.headers["content-type"] == "application/json; charset=UTF-8")
            #expect(
                String(decoding: send.request.body, as: UTF8.self)
                    == #"{"message":{"android":{"priority":"high","ttl":"3600s"},"data":{"secureId":"ntf_01HZX3Q"},"#
                    + #""token":"fcm-token-1"}}"#)
            #expect(await fcm.mock.violations.isEmpty)
        }
    }

    @Test("a device-verification challenge is a data-only message with the challenge and its pending device alone")
    func challengeMessage() async throws {
        try await withFCM { fcm in
            var job = fcm.job("fcm-token-2", id: "", expiresIn: 600)
            job.challenge = "q3Vb0zYQm2xJ8kT4fP1wLg"
            #expect(await fcm.provider.deliver(job) == .sent)
            let send = try #require(await fcm.mock.sends.first)
            #expect(
                String(decoding: send.request.body, as: UTF8.self)
                    == #"{"message":{"android":{"priority":"high","ttl":"600s"},"#
                    + #""data":{"securepushChallenge":"q3Vb0zYQm2xJ8kT4fP1wLg","securepushDeviceId":"\#(job.deviceID)"},"#
                    + #""token":"fcm-token-2"}}"#)
            #expect(send.challenge == "q3Vb0zYQm2xJ8kT4fP1wLg")
            #expect(send.secureId == nil)
            #expect(await fcm.mock.violations.isEmpty)
        }
    }

    @Test("a send's priority and collapse id become android.priority and android.collapse_key; none keeps high")
    func priorityAndCollapse() async throws {
        try await withFCM { fcm in
            var normal = fcm.job("fcm-a", id: "ntf_a")
            normal.priority = .normal
            normal.collapseID = "balance"
            var high = fcm.job("fcm-b", id: "ntf_b")
            high.priority = .high
            #expect(await fcm.provider.deliver(normal) == .sent)
            #expect(await fcm.provider.deliver(high) == .sent)
            #expect(await fcm.provider.deliver(fcm.job("fcm-c", id: "ntf_c")) == .sent)
            let sends = await fcm.mock.sends
            #expect(sends.map(\.priority) == ["normal", "high", "high"])
            #expect(sends.map(\.collapseKey) == ["balance", nil, nil])
            #expect(await fcm.mock.violations.isEmpty)
        }
    }

    @Test("the TTL is the whole seconds left until expiry, at least 0 and at most FCM's four weeks")
    func ttl() async throws {
        try await withFCM { fcm in
            for (expiresIn, token) in [(90.7, "a"), (-30, "b"), (60 * 86_400, "c")] {
                #expect(await fcm.provider.deliver(fcm.job(token, expiresIn: expiresIn)) == .sent)
            }
            #expect(await fcm.mock.sends.map(\.ttl) == ["90s", "0s", "2419200s"])
        }
    }

    @Test(
        "each documented FCM error maps onto its delivery outcome",
        arguments: [
            (404, "NOT_FOUND", "UNREGISTERED", DeliveryOutcome.deactivate(reason: "UNREGISTERED")),
            (400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", .failed(reason: "INVALID_ARGUMENT")),
            (403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH", .failed(reason: "SENDER_ID_MISMATCH")),
            (401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR", .failed(reason: "THIRD_PARTY_AUTH_ERROR")),
            (429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", .retry(after: .zero, reason: "QUOTA_EXCEEDED")),
            (503, "UNAVAILABLE", "UNAVAILABLE", .retry(after: .zero, reason: "UNAVAILABLE")),
            (500, "INTERNAL", "INTERNAL", .retry(after: .zero, reason: "INTERNAL")),
            (500, "UNKNOWN", "UNSPECIFIED_ERROR", .retry(after: .zero, reason: "UNSPECIFIED_ERROR")),
            (502, "UNAVAILABLE", nil, .retry(after: .zero, reason: "UNAVAILABLE")),
            (400, "FAILED_PRECONDITION", nil, .failed(reason: "FAILED_PRECONDITION")),
        ] as [(Int, String, String?, DeliveryOutcome)]
    )
    func errorMapping(httpStatus: Int, status: String, errorCode: String?, expected: DeliveryOutcome) async throws {
        try await withFCM { fcm in
            await fcm.mock.script("fcm-token-1", .error(httpStatus, status: status, errorCode: errorCode))
            #expect(await fcm.provider.deliver(fcm.job("fcm-token-1")) == expected)
            #expect(await fcm.mock.sendAttempts.count == 1)
            #expect(await fcm.mock.violations.isEmpty)
        }
    }

    @Test("a 404 without UNREGISTERED (a wrong project or base URL) fails the delivery but keeps the device")
    func bare404() async throws {
        try await withFCM(environment: ["SECUREPUSH_FCM_PROJECT_ID": "some-other-project"]) { fcm in
            #expect(await fcm.provider.deliver(fcm.job()) == .failed(reason: "NOT_FOUND"))
            #expect(await fcm.mock.sendAttempts.first?.path == "/v1/projects/some-other-project/messages:send")
        }
    }

    @Test("Retry-After in seconds or as an HTTP date becomes the retry delay")
    func retryAfter() async throws {
        try await withFCM { fcm in
            let inFiveMinutes = fcm.clock.now.addingTimeInterval(300)
            await fcm.mock.script(
                "fcm-token-1",
                .error(
                    429, status: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED", headers: [("Retry-After", "120")]),
                .error(
                    503, status: "UNAVAILABLE", errorCode: "UNAVAILABLE",
                    headers: [("Retry-After", httpDate(inFiveMinutes))]),
                .error(500, status: "INTERNAL", errorCode: "INTERNAL", headers: [("Retry-After", "soon")])
            )
            #expect(await fcm.provider.deliver(fcm.job()) == .retry(after: .seconds(120), reason: "QUOTA_EXCEEDED"))
            #expect(await fcm.provider.deliver(fcm.job()) == .retry(after: .seconds(300), reason: "UNAVAILABLE"))
            #expect(await fcm.provider.deliver(fcm.job()) == .retry(after: .zero, reason: "INTERNAL"))
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
        }
    }

    @Test("Retry-After: 99999999999999999 is read as a day, never an overflow (the worker then caps it)")
    func absurdRetryAfter() async throws {
        try await withFCM { fcm in
            await fcm.mock.script(
                "fcm-token-1",
                .error(
                    503, status: "UNAVAILABLE", errorCode: "UNAVAILABLE",
                    headers: [("Retry-After", "99999999999999999")]),
                .error(
                    503, status: "UNAVAILABLE", errorCode: "UNAVAILABLE",
                    headers: [("Retry-After", "99999999999999999999999999999999999999")])
            )
            #expect(await fcm.provider.deliver(fcm.job()) == .retry(after: .seconds(86_400), reason: "UNAVAILABLE"))
            #expect(await fcm.provider.deliver(fcm.job()) == .retry(after: .seconds(86_400), reason: "UNAVAILABLE"))
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
        }
    }

    @Test("a device without a valid registration token fails without a request")
    func invalidStoredToken() async throws {
        try await withFCM { fcm in
            #expect(await fcm.provider.deliver(fcm.job(nil)) == .failed(reason: "invalid FCM registration token"))
            #expect(
                await fcm.provider.deliver(fcm.job("has space")) == .failed(reason: "invalid FCM registration token"))
            #expect(await fcm.mock.sendAttempts.isEmpty)
            #expect(await fcm.mock.issuedTokens.isEmpty)
        }
    }

    @Test("an unreachable FCM endpoint is a retry, not a crash")
    func deadEndpoint() async throws {
        let deadPort = try await closedPort()
        try await withFCM(
            environment: ["SECUREPUSH_FCM_URL": "https://127.0.0.1:\(deadPort)"],
            connectTimeout: .seconds(8)
        ) { fcm in
            let outcome = await fcm.provider.deliver(fcm.job())
            guard case .retry(let after, let reason) = outcome else {
                Issue.record("expected a retry, got \(outcome)")
                return
            }
            #expect(after == .zero)
            #expect(reason.hasPrefix("FCM unreachable"))
            #expect(await fcm.mock.issuedTokens.count == 1)
        }
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
