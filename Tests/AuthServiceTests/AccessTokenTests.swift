import AuthService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Access tokens")
struct AccessTokenTests {
    @Test("an expired access token is refused by the verifier")
    func expiredAccessToken() async throws {
        // Tokens issued an hour ago with the default 15-minute lifetime.
        let clock = TestClock(Date().addingTimeInterval(-3600))
        let auth = try await AuthHarness.make(clock: clock)
        try await auth.register("alice")
        let grant = try await auth.login("alice")
        let error = try #require(
            await #expect(throws: RPCError.self) { try await auth.verifier().verify(grant.accessToken) })
        #expect(error.code == RPCErrorCode.unauthenticated)
    }

    @Test("the token lifetime follows the configuration")
    func configuredLifetime() async throws {
        var configuration = AuthHarness.configuration()
        configuration.accessTokenTTL = 60
        let auth = try await AuthHarness.make(configuration)
        try await auth.register("bob")
        let grant = try await auth.login("bob")
        #expect(grant.expiresIn == 60)
        #expect(try await auth.verifier().verify(grant.accessToken).subject == grant.userId)
    }

    @Test("a token signed by another key is refused")
    func foreignKey() async throws {
        let auth = try await AuthHarness.make()
        let other = try await AuthHarness.make()
        try await other.register("mallory")
        let forged = try await other.login("mallory")
        let error = try #require(
            await #expect(throws: RPCError.self) { try await auth.verifier().verify(forged.accessToken) })
        #expect(error.code == RPCErrorCode.unauthenticated)
    }

    @Test("a tampered token is refused")
    func tampered() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("carol")
        let grant = try await auth.login("carol")
        let forged = try Self.withScopeChanged(grant.accessToken)
        await #expect(throws: RPCError.self) { try await auth.verifier().verify(forged) }
    }

    /// `token` with its `user` scope rewritten to `push:send` and the signature left as it was.
    static func withScopeChanged(_ token: String) throws -> String {
        var parts = token.split(separator: ".").map(String.init)
        let claims = try #require(Data(base64URLEncoded: parts[1]))
        let edited = String(decoding: claims, as: UTF8.self).replacingOccurrences(of: "\"user\"", with: "\"push:send\"")
        parts[1] = Data(edited.utf8).base64URLEncodedString()
        return parts.joined(separator: ".")
    }
}
