import APNsMock
import DispatchService
import Foundation
import TestSupport
import Testing

@Suite("APNs provider tokens")
struct APNsProviderTokenTests {
    @Test("the provider token has header alg ES256 and kid, claims iss and iat only, and APNs accepts its signature")
    func tokenShape() async throws {
        let clock = TestClock()
        try await withAPNsMock(clock: clock) { mock in
            let outcome = try await withProvider(mock.configuration(), clock: clock) { provider in
                await provider.deliver(makeJob(token: deviceToken(20)))
            }
            // The mock verified the ES256 signature with the team's public key.
            #expect(outcome == .sent)
            let jwt = try #require(mock.state.requests.first?.jwt)
            let header = try jwtSegment(jwt, 0)
            #expect(Set(header.keys) == ["alg", "kid"])
            #expect(header["alg"] as? String == "ES256")
            #expect(header["kid"] as? String == mock.key.keyID)
            let claims = try jwtSegment(jwt, 1)
            #expect(Set(claims.keys) == ["iat", "iss"])
            #expect(claims["iss"] as? String == mock.key.teamID)
            #expect(claims["iat"] as? Int == Int(clock.now.timeIntervalSince1970))
        }
    }

    @Test("one provider token serves every request, concurrent or not, during its life")
    func tokenReused() async throws {
        let clock = TestClock()
        try await withAPNsMock(clock: clock) { mock in
            try await withProvider(mock.configuration(), clock: clock) { provider in
                for index in 0..<10 {
                    #expect(await provider.deliver(makeJob(token: deviceToken(100 + index))) == .sent)
                    clock.advance(by: 60)
                }
                let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
                    for index in 0..<20 {
                        group.addTask { await provider.deliver(makeJob(token: deviceToken(200 + index))) }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(outcomes.allSatisfy { $0 == .sent })
            }
            #expect(mock.state.requests.count == 30)
            #expect(mock.state.distinctJWTs.count == 1)
        }
    }

    @Test("the provider token is replaced once it is 50 minutes old, not before")
    func tokenRefreshedAfterFiftyMinutes() async throws {
        let clock = TestClock()
        try await withAPNsMock(clock: clock) { mock in
            try await withProvider(mock.configuration(), clock: clock) { provider in
                #expect(await provider.deliver(makeJob(token: deviceToken(30))) == .sent)
                clock.advance(by: 49 * 60 + 59)
                #expect(await provider.deliver(makeJob(token: deviceToken(30))) == .sent)
                #expect(mock.state.distinctJWTs.count == 1)
                clock.advance(by: 1)
                #expect(await provider.deliver(makeJob(token: deviceToken(30))) == .sent)
                #expect(await provider.deliver(makeJob(token: deviceToken(30))) == .sent)
            }
            let jwts = mock.state.distinctJWTs
            #expect(jwts.count == 2)
            let firstIAT = try #require(try jwtSegment(jwts[0], 1)["iat"] as? Int)
            let secondIAT = try #require(try jwtSegment(jwts[1], 1)["iat"] as? Int)
            #expect(secondIAT - firstIAT == 50 * 60)
        }
    }

    @Test("after 403 ExpiredProviderToken the token is replaced once and the request sent once more")
    func expiredTokenRefreshedAndRetried() async throws {
        let clock = TestClock()
        // APNs' clock runs 40 minutes ahead: a 25-minute-old token is over an hour old there.
        try await withAPNsMock(clock: clock, clockSkew: 40 * 60) { mock in
            let token = deviceToken(40)
            try await withProvider(mock.configuration(), clock: clock) { provider in
                #expect(await provider.deliver(makeJob(token: token)) == .sent)
                clock.advance(by: 25 * 60)
                #expect(await provider.deliver(makeJob(token: token)) == .sent)
            }
            let requests = mock.state.requests
            try #require(requests.map(\.answer) == [.success, .expiredProviderToken, .success])
            #expect(requests[1].headers["apns-id"] == requests[2].headers["apns-id"])
            #expect(requests[1].bodyText == requests[2].bodyText)
            let jwts = mock.state.distinctJWTs
            try #require(jwts.count == 2)
            #expect(requests[1].jwt == jwts[0])
            #expect(requests[2].jwt == jwts[1])
            let firstIAT = try #require(try jwtSegment(jwts[0], 1)["iat"] as? Int)
            let secondIAT = try #require(try jwtSegment(jwts[1], 1)["iat"] as? Int)
            #expect(secondIAT - firstIAT == 25 * 60)
        }
    }

    @Test("concurrent requests rejected with ExpiredProviderToken share one new token")
    func concurrentExpiryRefreshesOnce() async throws {
        let clock = TestClock()
        try await withAPNsMock(clock: clock, clockSkew: 40 * 60) { mock in
            try await withProvider(mock.configuration(), clock: clock) { provider in
                #expect(await provider.deliver(makeJob(token: deviceToken(50))) == .sent)
                clock.advance(by: 25 * 60)
                let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
                    for index in 0..<10 {
                        group.addTask { await provider.deliver(makeJob(token: deviceToken(51 + index))) }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(outcomes.count == 10)
                #expect(outcomes.allSatisfy { $0 == .sent })
            }
            #expect(mock.state.distinctJWTs.count == 2)
        }
    }

    @Test("a token younger than 20 minutes is not replaced after ExpiredProviderToken: the delivery waits instead")
    func youngTokenNotReplaced() async throws {
        let clock = TestClock()
        try await withAPNsMock(clock: clock) { mock in
            let token = deviceToken(60)
            // Apple answers TooManyProviderTokenUpdates to tokens replaced more often than every 20 minutes.
            mock.state.script(token, [.expiredProviderToken])
            try await withProvider(mock.configuration(), clock: clock) { provider in
                #expect(await provider.deliver(makeJob(token: deviceToken(61))) == .sent)
                clock.advance(by: 5 * 60)
                let outcome = await provider.deliver(makeJob(token: token))
                #expect(outcome == .retry(after: .seconds(15 * 60), reason: "ExpiredProviderToken"))
                clock.advance(by: 15 * 60)
                #expect(await provider.deliver(makeJob(token: token)) == .sent)
            }
            #expect(mock.state.requests.count == 3)
            #expect(mock.state.distinctJWTs.count == 1)
        }
    }

    @Test("if APNs still says ExpiredProviderToken after the refresh, the delivery is retried later")
    func expiredTwice() async throws {
        let clock = TestClock()
        try await withAPNsMock(clock: clock) { mock in
            let token = deviceToken(70)
            mock.state.script(token, [.expiredProviderToken, .expiredProviderToken])
            try await withProvider(mock.configuration(), clock: clock) { provider in
                #expect(await provider.deliver(makeJob(token: deviceToken(71))) == .sent)
                clock.advance(by: 30 * 60)
                let outcome = await provider.deliver(makeJob(token: token))
                #expect(outcome == .retry(after: .zero, reason: "ExpiredProviderToken"))
            }
            #expect(mock.state.requests.count == 3)
            #expect(mock.state.distinctJWTs.count == 2)
        }
    }

    @Test("a token signed with another key is refused by APNs and the delivery fails with InvalidProviderToken")
    func wrongKey() async throws {
        try await withAPNsMock { mock in
            var configuration = mock.configuration()
            configuration.signingKey = APNsTestKey().privateKey
            let outcome = try await withProvider(configuration) { provider in
                await provider.deliver(makeJob(token: deviceToken(80)))
            }
            #expect(outcome == .failed(reason: "InvalidProviderToken"))
        }
    }
}
