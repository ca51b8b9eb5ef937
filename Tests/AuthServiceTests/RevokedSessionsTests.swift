import AuthService
import Foundation
import ServiceCore
import SharedModels
import Testing

@Suite("auth.revokedSessions: how push-dispatch learns that a session was signed out")
struct RevokedSessionsTests {
    private let backend = AuthHarness.backendClient
    private let dispatch = AuthHarness.dispatchClient

    private func harness() async throws -> AuthHarness {
        try await AuthHarness.withServiceClients()
    }

    private func revoked(_ auth: AuthHarness, since: Date? = nil) async throws -> Auth.RevokedSessions.Result {
        try await auth.rpc.call(
            Auth.RevokedSessions.self, .init(since: since), token: try await auth.clientToken(dispatch))
    }

    @Test("user tokens carry their session as sid: the same through refreshes, another for another sign-in")
    func tokensCarryTheSession() async throws {
        let auth = try await harness()
        try await auth.register("ada")
        let first = try await auth.login("ada")
        let refreshed = try await auth.refresh(first.refreshToken)
        let second = try await auth.login("ada")
        let verifier = auth.verifier()
        let session = try #require(try await verifier.verify(first.accessToken).sessionID)
        #expect(try await verifier.verify(refreshed.accessToken).sessionID == session)
        #expect(try await verifier.verify(second.accessToken).sessionID != session)
        #expect(try await verifier.verify(try await auth.clientToken(backend)).sessionID == nil)
    }

    @Test("after logout the session is listed, others are not; the next call from asOf lists only newer ones")
    func logoutIsListed() async throws {
        let auth = try await harness()
        try await auth.register("ada")
        let signedOut = try await auth.login("ada")
        let stillIn = try await auth.login("ada")
        let verifier = auth.verifier()
        let session = try #require(try await verifier.verify(signedOut.accessToken).sessionID)
        #expect(try await revoked(auth).sessionIds.isEmpty)

        _ = try await auth.rpc.call(Auth.Logout.self, .init(refreshToken: signedOut.refreshToken))
        let answer = try await revoked(auth)
        #expect(answer.sessionIds == [session])
        #expect(try await verifier.verify(stillIn.accessToken).sessionID != session)

        auth.clock.advance(by: 5)
        #expect(try await revoked(auth, since: answer.asOf.addingTimeInterval(1)).sessionIds.isEmpty)
        // A replayed refresh token revokes its session too.
        _ = try await auth.refresh(stillIn.refreshToken)
        _ = try? await auth.refresh(stillIn.refreshToken)
        let replayed = try #require(try await verifier.verify(stillIn.accessToken).sessionID)
        #expect(try await revoked(auth, since: answer.asOf.addingTimeInterval(1)).sessionIds == [replayed])
    }

    @Test("only a client with sessions:read may ask: a user's or a backend's token is -32003, none or a bad one -32001")
    func needsSessionsRead() async throws {
        let auth = try await harness()
        try await auth.register("ada")
        let user = try await auth.login("ada").accessToken
        let cases: [(String?, Int)] = [
            (user, RPCErrorCode.forbidden), (try await auth.clientToken(backend), RPCErrorCode.forbidden),
            (nil, RPCErrorCode.unauthenticated), ("not-a-jwt", RPCErrorCode.unauthenticated),
        ]
        for (token, code) in cases {
            let error = await #expect(throws: RPCError.self) {
                _ = try await auth.rpc.call(Auth.RevokedSessions.self, .init(), token: token)
            }
            #expect(error?.code == code)
        }
    }
}
