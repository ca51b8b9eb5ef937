import AuthService
import Foundation
import ServiceCore
import SharedModels
import Synchronization
import TestSupport
import Testing

@Suite("Verified access tokens are remembered until they expire")
struct VerifiedTokenCacheTests {
    @Test("a token presented again is answered from the cache with the same principal")
    func repeatIsCached() async throws {
        let auth = try await AuthHarness.make()
        let userID = try await auth.register("dora")
        let grant = try await auth.login("dora")
        let verifier = auth.verifier()
        let first = try await verifier.verify(grant.accessToken)
        #expect(verifier.cachedTokenCount == 1)
        let second = try await verifier.verify(grant.accessToken)
        #expect(first == second)
        #expect(second.subject == userID && second.isUser)
        #expect(verifier.cachedTokenCount == 1)
    }

    @Test("a cached token is refused once its expiry has passed")
    func expiryHonoured() async throws {
        var configuration = AuthHarness.configuration()
        configuration.accessTokenTTL = 60
        let auth = try await AuthHarness.make(configuration)
        try await auth.register("erin")
        let grant = try await auth.login("erin")
        let offset = Mutex<TimeInterval>(0)
        let verifier = auth.verifier(now: { Date().addingTimeInterval(offset.withLock { $0 }) })
        _ = try await verifier.verify(grant.accessToken)
        #expect(verifier.cachedTokenCount == 1)
        offset.withLock { $0 = 120 }  // the verifier's clock is now past the token's expiry
        let error = try #require(
            await #expect(throws: RPCError.self) { try await verifier.verify(grant.accessToken) })
        #expect(error.code == RPCErrorCode.unauthenticated)
    }

    @Test("a tampered copy of a cached token is still refused")
    func tamperedCopyRefused() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("fred")
        let grant = try await auth.login("fred")
        let verifier = auth.verifier()
        _ = try await verifier.verify(grant.accessToken)
        let forged = try AccessTokenTests.withScopeChanged(grant.accessToken)
        await #expect(throws: RPCError.self) { try await verifier.verify(forged) }
        #expect(verifier.cachedTokenCount == 1)
    }

    @Test("tokens of a key that is no longer published are forgotten when the keys are reloaded")
    func removedKeyForgotten() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("gina")
        let grant = try await auth.login("gina")
        let published = Mutex(true)
        let rpc = auth.rpc
        let verifier = AccessTokenVerifier(logger: AuthHarness.logger) {
            published.withLock { $0 } ? try await rpc.call(Auth.Keys.self, Empty()).keys : []
        }
        _ = try await verifier.verify(grant.accessToken)
        #expect(verifier.cachedTokenCount == 1)
        published.withLock { $0 = false }
        #expect(await verifier.refresh())
        #expect(verifier.cachedTokenCount == 0)
        await #expect(throws: RPCError.self) { try await verifier.verify(grant.accessToken) }
    }
}
