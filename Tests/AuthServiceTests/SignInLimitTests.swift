import AuthService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// The outsider's address and the rightful user's.
let outsider = "127.0.0.2"
let rightfulUser = "127.0.0.1"

/// `data.retryAfterSeconds` of a `-32029`.
func retryAfter(_ error: RPCError) -> Int64? {
    guard case .object(let data) = error.data, case .int(let seconds) = data["retryAfterSeconds"] else { return nil }
    return seconds
}

@Suite("Sign-in limits: failures per account and address, never a lockout of the rightful holder")
struct SignInLimitTests {
    @Test("an outsider's failures never refuse the right password from another address")
    func outsiderCannotLockOutUser() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 3))
        try await auth.register("alice")
        var refusals = 0
        for _ in 0..<30 {
            let error = try #require(
                await #expect(throws: RPCError.self) { try await auth.login("alice", "wrong password", from: outsider) }
            )
            if error.code == RPCErrorCode.rateLimited { refusals += 1 }
        }
        #expect(refusals == 27)
        _ = try await auth.login("alice", from: rightfulUser)
        // The outsider stays refused, even with the right password: the pair is what is limited.
        let limited = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("alice", from: outsider) })
        #expect(limited.code == RPCErrorCode.rateLimited)
    }

    @Test("an outsider's failures never refuse a service client's right secret from another address")
    func outsiderCannotStopPushDispatch() async throws {
        let dispatch = ClientRegistry.Credentials(clientId: "push-dispatch", secret: "dispatch-secret-0123456789")
        let auth = try await AuthHarness.make(AuthHarness.configuration(dispatchClient: dispatch, maxFailedLogins: 3))
        for _ in 0..<30 {
            await #expect(throws: RPCError.self) {
                try await auth.clientToken("push-dispatch", "wrong", from: outsider)
            }
        }
        let limited = try #require(
            await #expect(throws: RPCError.self) {
                try await auth.clientToken("push-dispatch", dispatch.secret, from: outsider)
            })
        #expect(limited.code == RPCErrorCode.rateLimited)
        let token = try await auth.clientToken("push-dispatch", dispatch.secret, from: rightfulUser)
        #expect(token.scopes.contains(Scope.storeWrite))
    }

    @Test("failures of one account from one address get -32029 with retryAfterSeconds until the window passes")
    func pairLimit() async throws {
        let clock = TestClock()
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 3), clock: clock)
        try await auth.register("alice")
        for _ in 0..<3 {
            let error = try #require(
                await #expect(throws: RPCError.self) { try await auth.login("alice", "wrong password", from: outsider) }
            )
            #expect(error.code == RPCErrorCode.unauthenticated)
        }
        let limited = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("alice", from: outsider) })
        #expect(limited.code == RPCErrorCode.rateLimited)
        let seconds = try #require(retryAfter(limited))
        #expect(seconds > 0 && seconds <= Int64(auth.components.configuration.failedLoginWindow))

        try await auth.register("bob")
        _ = try await auth.login("bob", from: outsider)

        clock.advance(by: TimeInterval(auth.components.configuration.failedLoginWindow))
        _ = try await auth.login("alice", from: outsider)
    }

    @Test("one address guessing over many accounts is refused after five times the limit")
    func addressLimit() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 2))
        try await auth.register("alice")
        for index in 0..<(2 * SignInLimiter.addressFactor) {
            let error = try #require(
                await #expect(throws: RPCError.self) {
                    try await auth.login("user\(index)", "whatever1", from: outsider)
                }
            )
            #expect(error.code == RPCErrorCode.unauthenticated)
        }
        let limited = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("alice", from: outsider) })
        #expect(limited.code == RPCErrorCode.rateLimited)
        _ = try await auth.login("alice", from: rightfulUser)
    }

    @Test("IPv6 addresses are counted per /64, so one host cannot rotate through its addresses")
    func ipv6PerPrefix() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 2))
        try await auth.register("alice")
        for host in ["2001:db8:1:2::1", "2001:db8:1:2::2"] {
            await #expect(throws: RPCError.self) { try await auth.login("alice", "wrong password", from: host) }
        }
        let limited = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("alice", from: "2001:db8:1:2:ffff::9") })
        #expect(limited.code == RPCErrorCode.rateLimited)
        _ = try await auth.login("alice", from: "2001:db8:1:3::1")
        #expect(SignInLimiter.label("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(SignInLimiter.label(outsider) == outsider)
    }

    @Test("unknown usernames are limited like known ones")
    func unknownUsersLimited() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 2))
        for _ in 0..<2 {
            await #expect(throws: RPCError.self) { try await auth.login("ghost", "whatever1", from: outsider) }
        }
        let limited = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("ghost", "whatever1", from: outsider) })
        #expect(limited.code == RPCErrorCode.rateLimited)
    }

    @Test("a successful sign-in clears the failures of its pair")
    func successResets() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 2))
        try await auth.register("carol")
        await #expect(throws: RPCError.self) { try await auth.login("carol", "wrong password", from: outsider) }
        _ = try await auth.login("carol", from: outsider)
        await #expect(throws: RPCError.self) { try await auth.login("carol", "wrong password", from: outsider) }
        _ = try await auth.login("carol", from: outsider)
    }

    @Test("40 concurrent wrong guesses from one address: only the limit reach bcrypt, the rest get -32029 at once")
    func concurrentGuesses() async throws {
        var configuration = AuthHarness.configuration(maxFailedLogins: 10, authRateLimit: 0)
        // Room for all 40 in the hashing queue: only the reservation may stop them.
        configuration.passwordQueueLength = 100
        configuration.passwordChecksPerAddress = 100
        let auth = try await AuthHarness.make(configuration)
        try await auth.register("alice")
        let before = await auth.components.service.hashing.admitted
        let codes = await AuthHarness.concurrentOutcomes(40) { _ in
            _ = try await auth.login("alice", "wrong password", from: outsider)
        }
        #expect(codes.filter { $0 == RPCErrorCode.unauthenticated }.count == 10)
        #expect(codes.filter { $0 == RPCErrorCode.rateLimited }.count == 30)
        #expect(await auth.components.service.hashing.admitted - before == 10)
    }

    @Test("an account guessed from many addresses is slowed down progressively, never refused")
    func distributedAttackSlowsOnly() async throws {
        let delays = DelayRecorder()
        let limiter = SignInLimiter(
            counters: InMemoryAttemptCounters(), maxFailures: 2, window: 300, requestsPerMinute: 0,
            logger: AuthHarness.logger, sleep: { await delays.record($0) })
        let now = Date()
        let ceiling = 2 * SignInLimiter.accountFactor
        for index in 0..<(ceiling + 20) {
            _ = try await limiter.reserveAttempt(.user, account: "alice", from: "198.51.100.\(index)", at: now)
        }
        let recorded = await delays.delays
        #expect(recorded.count == 20)
        #expect(recorded.first == .seconds(1))
        #expect(recorded.last == SignInLimiter.maxDelay)
        #expect(recorded == recorded.sorted())
        // The rightful holder, at yet another address, is slowed but let through.
        let attempt = try await limiter.reserveAttempt(.user, account: "alice", from: rightfulUser, at: now)
        await limiter.succeeded(attempt, at: now)
    }
}

/// Records the delays a limiter asks for instead of sleeping.
actor DelayRecorder {
    private(set) var delays: [Duration] = []
    func record(_ delay: Duration) { delays.append(delay) }
}
