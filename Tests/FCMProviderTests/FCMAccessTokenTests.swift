import DispatchService
import Foundation
import JWTKit
import TestSupport
import Testing

@Suite("FCM OAuth access tokens")
struct FCMAccessTokenTests {
    @Test("the assertion is RS256, signed by the service account's key, with kid = private_key_id and token_uri as aud")
    func assertion() async throws {
        // The mock verifies signature and claims; a non-default token_uri proves the key file's one is used.
        try await withFCM(tokenURI: "{base}\(FCMMock.tokenPath)") { fcm in
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
            let header = try #require(await fcm.mock.assertionHeaders.first)
            #expect(header.alg == "RS256")
            #expect(header.kid == fcm.mock.account.privateKeyID)
            #expect(header.typ == "JWT")
            #expect(await fcm.mock.issuedTokens.count == 1)
            #expect(await fcm.mock.violations.isEmpty)
        }
    }

    @Test("many deliveries, also concurrent ones, share one access token")
    func cached() async throws {
        try await withFCM { fcm in
            let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
                for index in 0..<20 {
                    group.addTask { await fcm.provider.deliver(fcm.job("token-\(index)")) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes == Array(repeating: .sent, count: 20))
            for _ in 0..<5 { #expect(await fcm.provider.deliver(fcm.job()) == .sent) }
            #expect(await fcm.mock.issuedTokens.count == 1)
            #expect(await fcm.mock.sends.count == 25)
        }
    }

    @Test("the token is replaced shortly (60 s) before it expires, not earlier")
    func refreshBeforeExpiry() async throws {
        try await withFCM { fcm in
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
            fcm.clock.advance(by: 3_539)
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
            #expect(await fcm.mock.issuedTokens.count == 1)
            fcm.clock.advance(by: 2)
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
            let tokens = await fcm.mock.issuedTokens
            try #require(tokens.count == 2)
            let last = try #require(await fcm.mock.sends.last)
            #expect(last.request.headers["authorization"] == "Bearer \(tokens[1])")
        }
    }

    @Test("a 401 drops the token, fetches a new one and sends again, once")
    func refreshOn401() async throws {
        try await withFCM { fcm in
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
            await fcm.mock.revokeIssuedTokens()
            #expect(await fcm.provider.deliver(fcm.job()) == .sent)
            #expect(await fcm.mock.issuedTokens.count == 2)
            #expect(await fcm.mock.sendAttempts.count == 3)
            #expect(await fcm.mock.sends.count == 2)
        }
    }

    @Test("a 401 that persists after a fresh token is retried later, not looped")
    func persistent401() async throws {
        try await withFCM { fcm in
            await fcm.mock.refuseAllBearerTokens(true)
            #expect(await fcm.provider.deliver(fcm.job()) == .retry(after: .zero, reason: "UNAUTHENTICATED"))
            #expect(await fcm.mock.issuedTokens.count == 2)
            #expect(await fcm.mock.sendAttempts.count == 2)
        }
    }

    @Test("a refused service account is a retry that names the token endpoint's error, and nothing is sent")
    func refusedAssertion() async throws {
        try await withFCM { fcm in
            await fcm.mock.refuseTokens("invalid_grant")
            let outcome = await fcm.provider.deliver(fcm.job())
            #expect(
                outcome
                    == .retry(
                        after: .zero,
                        reason: "FCM access token: token endpoint answered HTTP 400: invalid_grant (scripted refusal)"))
            #expect(await fcm.mock.sendAttempts.isEmpty)
        }
    }

    @Test("an unreachable token endpoint is a retry, not a crash")
    func deadTokenEndpoint() async throws {
        let deadPort = try await closedPort()
        try await withFCM(
            tokenURI: "https://127.0.0.1:\(deadPort)/token", connectTimeout: .seconds(1)
        ) { fcm in
            let outcome = await fcm.provider.deliver(fcm.job())
            guard case .retry(.zero, let reason) = outcome else {
                Issue.record("expected a retry, got \(outcome)")
                return
            }
            #expect(reason.hasPrefix("FCM access token: token endpoint unreachable"))
            #expect(await fcm.mock.sendAttempts.isEmpty)
        }
    }
}
