import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("WNS delivery")
struct WNSDeliveryTests {
    @Test("a delivery posts a raw notification whose body is the id alone, with exactly the WNS headers")
    func exactRequest() async throws {
        try await withWNS { wns in
            #expect(await wns.provider.deliver(wns.job(id: "ntf_01HZX3Q", expiresIn: 600.9)) == .sent)
            let send = try #require(await wns.mock.sends.first)
            #expect(await wns.mock.sends.count == 1)
            // The channel URI is used byte for byte: its percent-escapes are WNS's, not ours to re-encode.
            #expect(send.request.uri == "/w/?token=AwYAAAD%2bOHp6XwK3Nt2cdfN5YAs%3d")
            #expect(send.channelToken == "AwYAAAD%2bOHp6XwK3Nt2cdfN5YAs%3d")
            #expect(send.request.body == Data("ntf_01HZX3Q".utf8))
            let token = try #require(await wns.mock.issuedTokens.first)
            let headers = send.request.headers
            #expect(headers["authorization"] == "Bearer \(token)")
            #expect(headers["content-type"] == "application/octet-stream")
            #expect(headers["x-wns-type"] == "wns/raw")
            #expect(headers["x-wns-ttl"] == "600")
            #expect(headers["x-wns-cache-policy"] == "cache")
            #expect(
                headers.keys.filter { $0.hasPrefix("x-wns-") }.sorted() == [
                    "x-wns-cache-policy", "x-wns-ttl", "x-wns-type",
                ])
            #expect(await wns.mock.violations.isEmpty)
        }
    }

    @Test("a send's priority is X-WNS-PRIORITY 1 (high) or 2 (normal); none sends no header")
    func priority() async throws {
        try await withWNS { wns in
            for priority in [Push.Priority.high, .normal, nil] {
                var job = wns.job()
                job.priority = priority
                #expect(await wns.provider.deliver(job) == .sent)
            }
            #expect(await wns.mock.sends.map { $0.request.headers["x-wns-priority"] } == ["1", "2", nil])
            #expect(await wns.mock.violations.isEmpty)
        }
    }

    @Test("a device-verification challenge is a raw notification whose body is the challenge as JSON")
    func challengeRequest() async throws {
        try await withWNS { wns in
            var job = wns.job(id: "", expiresIn: 600)
            job.challenge = "q3Vb0zYQm2xJ8kT4fP1wLg"
            #expect(await wns.provider.deliver(job) == .sent)
            let send = try #require(await wns.mock.sends.first)
            let body = #"{"securepushChallenge":"q3Vb0zYQm2xJ8kT4fP1wLg","securepushDeviceId":"\#(job.deviceID)"}"#
            #expect(send.request.body == Data(body.utf8))
            #expect(send.request.headers["x-wns-type"] == "wns/raw")
            #expect(await wns.mock.violations.isEmpty)
        }
    }

    @Test("an expired or nearly expired notification still gets WNS's minimum TTL of one second")
    func minimumTTL() async throws {
        try await withWNS { wns in
            #expect(await wns.provider.deliver(wns.job(expiresIn: -10)) == .sent)
            #expect(await wns.mock.sends.first?.request.headers["x-wns-ttl"] == "1")
        }
    }

    @Test(
        "each WNS response code maps onto its delivery outcome",
        arguments: [
            (200, [("X-WNS-Status", "received")], DeliveryOutcome.sent),
            (200, [("X-WNS-Status", "dropped")], .failed(reason: "dropped")),
            (200, [("X-WNS-Status", "channelthrottled")], .retry(after: .zero, reason: "channelthrottled")),
            (400, [("X-WNS-Error-Description", "Invalid header")], .failed(reason: "HTTP 400: Invalid header")),
            (403, [], .failed(reason: "HTTP 403")),
            (404, [], .deactivate(reason: "HTTP 404")),
            (405, [], .failed(reason: "HTTP 405")),
            (406, [], .retry(after: .zero, reason: "HTTP 406")),
            (410, [("X-WNS-Error-Description", "Channel expired")], .deactivate(reason: "HTTP 410: Channel expired")),
            (413, [], .failed(reason: "HTTP 413")),
            (429, [], .retry(after: .zero, reason: "HTTP 429")),
            (500, [], .retry(after: .zero, reason: "HTTP 500")),
            (503, [], .retry(after: .zero, reason: "HTTP 503")),
        ] as [(Int, [(String, String)], DeliveryOutcome)]
    )
    func responseMapping(status: Int, headers: [(String, String)], expected: DeliveryOutcome) async throws {
        try await withWNS { wns in
            await wns.mock.script("chan-1", .init(status, headers: headers))
            #expect(await wns.provider.deliver(wns.job(wns.channel("chan-1"))) == expected)
            #expect(await wns.mock.sendAttempts.count == 1)
            #expect(await wns.mock.violations.isEmpty)
        }
    }

    @Test("X-WNS-CONTINUE-AFTER (seconds or a date) sets the retry delay, then Retry-After, else the worker decides")
    func continueAfter() async throws {
        try await withWNS { wns in
            let inTenMinutes = httpDate(wns.clock.now.addingTimeInterval(600))
            await wns.mock.script(
                "chan-1",
                .init(406, headers: [("X-WNS-CONTINUE-AFTER", "90"), ("Retry-After", "5")]),
                .init(429, headers: [("X-WNS-CONTINUE-AFTER", inTenMinutes)]),
                .init(503, headers: [("Retry-After", "30")]),
                .init(406, headers: [("X-WNS-CONTINUE-AFTER", "later")]),
                .init(200, headers: [("X-WNS-Status", "channelthrottled"), ("X-WNS-CONTINUE-AFTER", "45")])
            )
            let job = wns.job(wns.channel("chan-1"))
            #expect(await wns.provider.deliver(job) == .retry(after: .seconds(90), reason: "HTTP 406"))
            #expect(await wns.provider.deliver(job) == .retry(after: .seconds(600), reason: "HTTP 429"))
            #expect(await wns.provider.deliver(job) == .retry(after: .seconds(30), reason: "HTTP 503"))
            #expect(await wns.provider.deliver(job) == .retry(after: .zero, reason: "HTTP 406"))
            #expect(await wns.provider.deliver(job) == .retry(after: .seconds(45), reason: "channelthrottled"))
            #expect(await wns.provider.deliver(job) == .sent)
        }
    }

    @Test("a stored channel URI the configuration does not accept fails without any request")
    func foreignHost() async throws {
        try await withWNS(environment: ["SECUREPUSH_WNS_ALLOW_ANY_HOST": "0"]) { wns in
            #expect(await wns.provider.deliver(wns.job()) == .failed(reason: "invalid WNS channel URI"))
            #expect(await wns.provider.deliver(wns.job("")) == .failed(reason: "invalid WNS channel URI"))
            #expect(await wns.mock.sendAttempts.isEmpty)
            #expect(await wns.mock.tokenRequests.isEmpty)
        }
    }

    @Test("an unreachable channel is a retry, not a crash")
    func deadChannel() async throws {
        let deadPort = try await closedPort()
        // Long enough for the live mock token endpoint on a loaded machine; the dead port still fails.
        try await withWNS(connectTimeout: .seconds(8)) { wns in
            let outcome = await wns.provider.deliver(wns.job("https://127.0.0.1:\(deadPort)/w/?token=x"))
            guard case .retry(.zero, let reason) = outcome else {
                Issue.record("expected a retry, got \(outcome)")
                return
            }
            #expect(reason.hasPrefix("WNS unreachable"))
        }
    }
}
