import DispatchService
import Foundation
import TestSupport
import Testing

@Suite("WNS OAuth access tokens")
struct WNSAccessTokenTests {
    @Test("the token request is the client-credentials form with scope notify.windows.com, the secret escaped")
    func tokenRequest() async throws {
        try await withWNS { wns in
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            let request = try #require(await wns.mock.tokenRequests.first)
            #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
            #expect(
                String(decoding: request.body, as: UTF8.self)
                    == "grant_type=client_credentials"
                    + "&client_id=ms-app%3A%2F%2Fs-1-15-2-2972962901-2322836549-3722629029-1345238579-3987825745-"
                    + "2155616079-650196962"
                    + "&client_secret=Vex8L9WOFZuj95euaLrvSH7XyoDhLJc7%2B%2F%3D%26&scope=notify.windows.com")
            #expect(await wns.mock.violations.isEmpty)
        }
    }

    @Test("many deliveries, also concurrent ones, share one access token")
    func cached() async throws {
        try await withWNS { wns in
            let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
                for index in 0..<20 {
                    group.addTask { await wns.provider.deliver(wns.job(wns.channel("chan-\(index)"))) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes == Array(repeating: .sent, count: 20))
            for _ in 0..<5 { #expect(await wns.provider.deliver(wns.job()) == .sent) }
            #expect(await wns.mock.issuedTokens.count == 1)
            #expect(await wns.mock.sends.count == 25)
        }
    }

    @Test("the token is replaced shortly (60 s) before it expires, not earlier")
    func refreshBeforeExpiry() async throws {
        try await withWNS { wns in
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            wns.clock.advance(by: 86_400 - 61)
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            #expect(await wns.mock.issuedTokens.count == 1)
            wns.clock.advance(by: 2)
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            #expect(await wns.mock.issuedTokens.count == 2)
        }
    }

    @Test("a short-lived token is used for half its life instead of being fetched for every send")
    func shortLivedToken() async throws {
        try await withWNS { wns in
            await wns.mock.setTokenLifetime(40)
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            wns.clock.advance(by: 19)
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            #expect(await wns.mock.issuedTokens.count == 1)
            wns.clock.advance(by: 2)
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            #expect(await wns.mock.issuedTokens.count == 2)
        }
    }

    @Test("a 401 drops the token, fetches a new one and sends again, once")
    func refreshOn401() async throws {
        try await withWNS { wns in
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            await wns.mock.revokeIssuedTokens()
            #expect(await wns.provider.deliver(wns.job()) == .sent)
            #expect(await wns.mock.issuedTokens.count == 2)
            #expect(await wns.mock.sendAttempts.count == 3)
            #expect(await wns.mock.sends.count == 2)
        }
    }

    @Test("a 401 that persists after a fresh token is retried later, not looped")
    func persistent401() async throws {
        try await withWNS { wns in
            await wns.mock.refuseAllBearerTokens(true)
            #expect(await wns.provider.deliver(wns.job()) == .retry(after: .zero, reason: "HTTP 401"))
            #expect(await wns.mock.issuedTokens.count == 2)
            #expect(await wns.mock.sendAttempts.count == 2)
        }
    }

    @Test("refused client credentials are a retry naming the OAuth error, and nothing is sent")
    func refusedCredentials() async throws {
        try await withWNS(environment: ["SECUREPUSH_WNS_CLIENT_SECRET": "wrong"]) { wns in
            #expect(
                await wns.provider.deliver(wns.job())
                    == .retry(
                        after: .zero,
                        reason: "WNS access token: token endpoint answered HTTP 400: invalid_client (Invalid client id)"
                    ))
            #expect(await wns.mock.sendAttempts.isEmpty)
        }
    }

    @Test("an unreachable token endpoint is a retry, not a crash")
    func deadTokenEndpoint() async throws {
        let deadPort = try await closedPort()
        try await withWNS(
            environment: ["SECUREPUSH_WNS_TOKEN_URL": "https://127.0.0.1:\(deadPort)/accesstoken.srf"],
            connectTimeout: .seconds(1)
        ) { wns in
            let outcome = await wns.provider.deliver(wns.job())
            guard case .retry(.zero, let reason) = outcome else {
                Issue.record("expected a retry, got \(outcome)")
                return
            }
            #expect(reason.hasPrefix("WNS access token: token endpoint unreachable"))
            #expect(await wns.mock.sendAttempts.isEmpty)
        }
    }
}
