import AuthService
import Foundation
import GRDB
import SharedModels
import TestSupport
import Testing

@Suite("Refresh tokens: rotation, reuse detection, logout")
struct RefreshTokenTests {
    @Test("refresh rotates: a new pair is issued and the old refresh token no longer works")
    func rotation() async throws {
        let auth = try await AuthHarness.make()
        let userId = try await auth.register("alice")
        let first = try await auth.login("alice")

        let second = try await auth.refresh(first.refreshToken)
        #expect(second.userId == userId)
        #expect(second.refreshToken != first.refreshToken)
        #expect(second.accessToken != first.accessToken)
        #expect(try await auth.verifier().verify(second.accessToken).subject == userId)

        let error = try #require(await #expect(throws: RPCError.self) { try await auth.refresh(first.refreshToken) })
        #expect(error.code == RPCErrorCode.unauthenticated)
    }

    @Test("presenting a rotated refresh token revokes the whole family, so the newest token fails too")
    func reuseRevokesFamily() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("bob")
        let first = try await auth.login("bob")
        let second = try await auth.refresh(first.refreshToken)
        let third = try await auth.refresh(second.refreshToken)

        // An attacker replays the stolen first token.
        let replay = try #require(await #expect(throws: RPCError.self) { try await auth.refresh(first.refreshToken) })
        #expect(replay.code == RPCErrorCode.unauthenticated)

        let newest = try #require(await #expect(throws: RPCError.self) { try await auth.refresh(third.refreshToken) })
        #expect(newest.code == RPCErrorCode.unauthenticated)
    }

    @Test("revoking one family leaves the user's other sessions alone")
    func familiesAreIndependent() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("carol")
        let phone = try await auth.login("carol")
        let laptop = try await auth.login("carol")
        _ = try await auth.refresh(phone.refreshToken)
        await #expect(throws: RPCError.self) { try await auth.refresh(phone.refreshToken) }

        let stillSignedIn = try await auth.refresh(laptop.refreshToken)
        #expect(stillSignedIn.userId == laptop.userId)
    }

    @Test("logout revokes the family: neither the token nor its successors refresh afterwards")
    func logoutRevokes() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("dave")
        let first = try await auth.login("dave")
        let second = try await auth.refresh(first.refreshToken)

        _ = try await auth.rpc.call(Auth.Logout.self, .init(refreshToken: second.refreshToken))
        let error = try #require(await #expect(throws: RPCError.self) { try await auth.refresh(second.refreshToken) })
        #expect(error.code == RPCErrorCode.unauthenticated)
    }

    @Test("logout with an unknown token answers {} like a known one; an empty token is -32602")
    func logoutUnknownAndEmpty() async throws {
        let auth = try await AuthHarness.make()
        let result = try await auth.rpc.call(Auth.Logout.self, .init(refreshToken: OpaqueToken.generate()))
        #expect(result == Empty())

        let error = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Auth.Logout.self, .init(refreshToken: ""))
            })
        #expect(error.code == RPCErrorCode.invalidParams)
        #expect(error.message.contains("'refreshToken'"))
    }

    @Test("unknown, empty and expired refresh tokens are refused")
    func refusedTokens() async throws {
        let clock = TestClock()
        let auth = try await AuthHarness.make(clock: clock)
        try await auth.register("erin")
        let grant = try await auth.login("erin")

        let unknown = try #require(
            await #expect(throws: RPCError.self) { try await auth.refresh(OpaqueToken.generate()) })
        #expect(unknown.code == RPCErrorCode.unauthenticated)
        let empty = try #require(await #expect(throws: RPCError.self) { try await auth.refresh("") })
        #expect(empty.code == RPCErrorCode.invalidParams)

        clock.advance(by: TimeInterval(auth.components.configuration.refreshTokenTTL) + 1)
        let expired = try #require(await #expect(throws: RPCError.self) { try await auth.refresh(grant.refreshToken) })
        #expect(expired.code == RPCErrorCode.unauthenticated)
    }

    @Test("a refresh token still works just before it expires, and its successor lives a full lifetime")
    func slidingLifetime() async throws {
        let clock = TestClock()
        let auth = try await AuthHarness.make(clock: clock)
        try await auth.register("frank")
        let ttl = TimeInterval(auth.components.configuration.refreshTokenTTL)
        let first = try await auth.login("frank")
        clock.advance(by: ttl - 10)
        let second = try await auth.refresh(first.refreshToken)
        clock.advance(by: ttl - 10)
        _ = try await auth.refresh(second.refreshToken)
    }

    @Test("refresh tokens are stored only as SHA-256 hashes")
    func storedHashed() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("grace")
        let grant = try await auth.login("grace")
        let stored = try await auth.components.sqlite!.read { db in
            try String.fetchAll(db, sql: "SELECT hash FROM refresh_tokens")
        }
        #expect(stored == [OpaqueToken.storageHash(of: grant.refreshToken)])
        #expect(!stored.contains(grant.refreshToken))
    }

    @Test("purging removes expired refresh tokens but keeps live ones")
    func purge() async throws {
        let clock = TestClock()
        let auth = try await AuthHarness.make(clock: clock)
        try await auth.register("heidi")
        _ = try await auth.login("heidi")
        clock.advance(by: TimeInterval(auth.components.configuration.refreshTokenTTL) + 1)
        let live = try await auth.login("heidi")

        #expect(try await auth.components.service.purgeExpiredTokens() == 1)
        _ = try await auth.refresh(live.refreshToken)
        let families = try await auth.components.sqlite!.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM token_families") ?? -1
        }
        #expect(families == 1)
    }
}
