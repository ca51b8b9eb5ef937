import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("The service client's token provider")
struct ClientTokenProviderTests {
    @Test("a service client's token is reused until shortly before it expires by the injected clock")
    func clientTokenFollowsClock() async throws {
        let auth = FakeAuth(signer: try await TestSigner())
        let clock = TestClock()
        let tokens = ClientCredentialsTokenProvider(
            auth: auth.client, clientID: FakeAuth.clientID, clientSecret: FakeAuth.clientSecret, refreshMargin: 60,
            now: { clock.now })
        _ = try await tokens.token()
        clock.advance(by: 900 - 60 - 1)
        _ = try await tokens.token()
        #expect(auth.issuedTokens.count == 1)
        clock.advance(by: 2)
        _ = try await tokens.token()
        #expect(auth.issuedTokens.count == 2)
    }
}
