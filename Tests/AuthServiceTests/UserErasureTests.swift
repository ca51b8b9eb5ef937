import AuthService
import Foundation
import MetricsTestKit
import ServiceCore
import SharedModels
import Synchronization
import TestSupport
import Testing

/// push-dispatch and the store as auth sees them: they answer (or, while `down`, fail) and remember what they were
/// asked, with which token's scope.
private final class FakeErasurePeers: ErasurePeers {
    let calls = Mutex<[String]>([])
    let down = Mutex(false)

    func eraseInDispatch(_ params: Devices.EraseUser.Params, token: String) async throws -> Devices.EraseUser.Result {
        try answer("dispatch \(params.userId)")
        return .init(erased: ["devices": 1, "sends": 2], deviceIds: ["d-1"])
    }

    func eraseInStore(_ params: Store.EraseUser.Params, token: String) async throws -> Store.EraseUser.Result {
        try answer("store \(params.userId) \(params.deviceIds ?? [])")
        return .init(erased: ["notifications": 2])
    }

    private func answer(_ call: String) throws {
        if down.withLock({ $0 }) { throw RPCError.unavailable("notification-store", "connection refused") }
        calls.withLock { $0.append(call) }
    }
}

@Suite("users.delete in auth: who may erase whom, the recent sign-in, the journal")
struct UserErasureTests {
    @Test("auth_time is the password sign-in, kept across refreshes; an old one is refused with signInRequired")
    func recentSignInRequired() async throws {
        let peers = FakeErasurePeers()
        let auth = try await AuthHarness.make(erasurePeers: peers)
        let userID = try await auth.register("erin")
        let signIn = try await auth.login("erin")
        let signedInAt = auth.clock.now
        auth.clock.advance(by: 301)
        let refreshed = try await auth.refresh(signIn.refreshToken)
        let principal = try await auth.verifier(now: { auth.clock.now }).verify(refreshed.accessToken)
        #expect(principal.authTime.map { Int($0.timeIntervalSince1970) } == Int(signedInAt.timeIntervalSince1970))

        let refused = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Users.Delete.self, .init(), token: refreshed.accessToken)
            })
        #expect(refused.code == RPCErrorCode.forbidden)
        #expect(refused.data == .object(["reason": "signInRequired"]))
        #expect(peers.calls.withLock { $0 }.isEmpty)

        let again = try await auth.login("erin")
        let result = try await auth.rpc.call(Users.Delete.self, .init(userId: userID), token: again.accessToken)
        // The user's audit key (made for the entries about them) is deleted: those entries link to no one now.
        #expect(result.services["auth"] == ["users": 1, "sessions": 2, "auditKeys": 1])
        #expect(
            try await auth.components.database.sql.read("SELECT 1 FROM audit_user_key WHERE user_id = ?", [userID])
                .isEmpty)
        #expect(result.services["push-dispatch"] == ["devices": 1, "sends": 2])
        #expect(result.services["notification-store"] == ["notifications": 2])
        #expect(peers.calls.withLock { $0 } == ["dispatch \(userID)", "store \(userID) [\"d-1\"]"])
        await #expect(throws: RPCError.self) { try await auth.login("erin") }
    }

    @Test("a user may not erase someone else; a client needs users:delete and names exactly one user")
    func whoMayErase() async throws {
        let operatorClient = ClientRegistry.Credentials(clientId: "ops", secret: "ops-secret-0123456789")
        let backend = ClientRegistry.Credentials(clientId: "backend", secret: "backend-secret-0123456789")
        let auth = try await AuthHarness.make(
            AuthHarness.configuration(bootstrapClient: backend), erasurePeers: FakeErasurePeers())
        _ = try await auth.components.service.createClient(
            id: operatorClient.clientId, scopes: [Scope.usersDelete], secret: operatorClient.secret)
        let victim = try await auth.register("victor")
        _ = try await auth.register("mallory")
        let mallory = try await auth.login("mallory")
        let other = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Users.Delete.self, .init(userId: victim), token: mallory.accessToken)
            })
        #expect(other.code == RPCErrorCode.forbidden)

        let sender = try await auth.clientToken(backend.clientId, backend.secret, from: "10.0.0.1")
        let noScope = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Users.Delete.self, .init(userId: victim), token: sender.accessToken)
            })
        #expect(noScope.code == RPCErrorCode.forbidden)

        let ops = try await auth.clientToken(operatorClient.clientId, operatorClient.secret, from: "10.0.0.2")
        let neither = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Users.Delete.self, .init(), token: ops.accessToken)
            })
        #expect(neither.code == RPCErrorCode.invalidParams)
        #expect(neither.message.contains("userId"))
        let unknown = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Users.Delete.self, .init(username: "nobody"), token: ops.accessToken)
            })
        #expect(unknown.code == RPCErrorCode.notFound)

        let first = try await auth.rpc.call(Users.Delete.self, .init(username: "victor"), token: ops.accessToken)
        let repeated = try await auth.rpc.call(Users.Delete.self, .init(userId: victim), token: ops.accessToken)
        #expect(repeated == first, "idempotent: the first result again")
    }

    @Test("a service that cannot be reached: -32050 with the erasureId; the resumer finishes it once it answers")
    func resumedAfterOutage() async throws {
        let peers = FakeErasurePeers()
        peers.down.withLock { $0 = true }
        let operatorClient = ClientRegistry.Credentials(clientId: "ops", secret: "ops-secret-0123456789")
        let auth = try await AuthHarness.make(erasurePeers: peers)
        _ = try await auth.components.service.createClient(
            id: operatorClient.clientId, scopes: [Scope.usersDelete], secret: operatorClient.secret)
        let victim = try await auth.register("wendy")
        let ops = try await auth.clientToken(operatorClient.clientId, operatorClient.secret, from: "10.0.0.2")
        let unavailable = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Users.Delete.self, .init(userId: victim), token: ops.accessToken)
            })
        #expect(unavailable.code == RPCErrorCode.unavailable)
        guard case .object(let data)? = unavailable.data, case .string(let erasureID)? = data["erasureId"] else {
            Issue.record("no erasureId in \(String(describing: unavailable.data))")
            return
        }
        // auth's own part is done already: the account no longer signs in.
        await #expect(throws: RPCError.self) { try await auth.login("wendy") }

        peers.down.withLock { $0 = false }
        try await auth.components.service.erasure!.resumeUnfinished()
        #expect(peers.calls.withLock { $0 }.count == 2)
        let finished = try await auth.rpc.call(Users.Delete.self, .init(userId: victim), token: ops.accessToken)
        #expect(finished.erasureId == erasureID)
        #expect(finished.services["notification-store"] == ["notifications": 2])
        #expect(peers.calls.withLock { $0 }.count == 2, "a finished erasure is not run again")
        let journal = try #require(
            try await auth.components.database.sql.readOne(
                "SELECT user_id, finished_at FROM user_erasure WHERE id = ?", [erasureID]))
        #expect(try journal.decode(0, as: String?.self) == nil, "the user id is forgotten once finished")
        #expect(try journal.decode(1, as: Int64?.self) != nil)
    }
}

@Suite("auth retention")
struct AuthRetentionTests {
    @Test("a signed-out session is kept SECUREPUSH_RETAIN_REVOKED_SESSIONS, then purged and counted")
    func revokedSessions() async throws {
        let metrics = TestMetrics()
        var configuration = AuthHarness.configuration()
        configuration.revokedSessionRetention = 900
        let auth = try await AuthHarness.make(configuration, metrics: metrics)
        _ = try await auth.register("rita")
        let grant = try await auth.login("rita")
        _ = try await auth.login("rita")  // a second session, never revoked
        _ = try await auth.rpc.call(Auth.Logout.self, .init(refreshToken: grant.refreshToken))
        auth.clock.advance(by: 899)
        try await auth.components.service.purgeExpiredTokens()
        let sessions = "SELECT COUNT(*) FROM token_families"
        #expect(try await auth.components.database.sql.readOne(sessions, [])?.decode(0, as: Int64.self) == 2)
        auth.clock.advance(by: 2)
        try await auth.components.service.purgeExpiredTokens()
        #expect(try await auth.components.database.sql.readOne(sessions, [])?.decode(0, as: Int64.self) == 1)
        #expect(
            try metrics.expectCounter("securepush_retention_purged_total", [("kind", "revokedSessions")]).totalValue
                == 1)
    }
}
