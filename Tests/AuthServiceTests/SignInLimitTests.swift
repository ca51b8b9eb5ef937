import AuthService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("Throttling failed sign-ins")
struct LoginThrottleTests {
    private func retryAfter(_ error: RPCError) -> Int64? {
        guard case .object(let data) = error.data, case .int(let seconds) = data["retryAfterSeconds"] else {
            return nil
        }
        return seconds
    }

    @Test("after too many failures even the right password gets -32029 until the window passes")
    func lockout() async throws {
        let clock = TestClock()
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 3), clock: clock)
        try await auth.register("alice")
        for _ in 0..<3 {
            let error = try #require(
                await #expect(throws: RPCError.self) { try await auth.login("alice", "wrong password") })
            #expect(error.code == RPCErrorCode.unauthenticated)
        }
        let limited = try #require(await #expect(throws: RPCError.self) { try await auth.login("alice") })
        #expect(limited.code == RPCErrorCode.rateLimited)
        let seconds = try #require(retryAfter(limited))
        #expect(seconds > 0 && seconds <= Int64(auth.components.configuration.failedLoginWindow))

        // Another user is not affected.
        try await auth.register("bob")
        _ = try await auth.login("bob")

        clock.advance(by: TimeInterval(auth.components.configuration.failedLoginWindow))
        _ = try await auth.login("alice")
    }

    @Test("unknown usernames are throttled like known ones")
    func unknownUsersThrottled() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 2))
        for _ in 0..<2 { await #expect(throws: RPCError.self) { try await auth.login("ghost", "whatever1") } }
        let limited = try #require(await #expect(throws: RPCError.self) { try await auth.login("ghost", "whatever1") })
        #expect(limited.code == RPCErrorCode.rateLimited)
    }

    @Test("a successful sign-in clears the failures")
    func successResets() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 2))
        try await auth.register("carol")
        await #expect(throws: RPCError.self) { try await auth.login("carol", "wrong password") }
        _ = try await auth.login("carol")
        await #expect(throws: RPCError.self) { try await auth.login("carol", "wrong password") }
        _ = try await auth.login("carol")
    }

    @Test("client credentials are throttled per client id")
    func clientThrottle() async throws {
        let backend = ClientRegistry.Credentials(clientId: "backend", secret: "backend-secret")
        let auth = try await AuthHarness.make(AuthHarness.configuration(bootstrapClient: backend, maxFailedLogins: 2))
        for _ in 0..<2 {
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Auth.ClientToken.self, .init(clientId: "backend", clientSecret: "wrong"))
            }
        }
        let limited = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.rpc.call(
                    Auth.ClientToken.self, .init(clientId: "backend", clientSecret: "backend-secret"))
            })
        #expect(limited.code == RPCErrorCode.rateLimited)
    }
}
