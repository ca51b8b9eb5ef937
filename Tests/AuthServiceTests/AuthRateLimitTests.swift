import AuthService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Per-address rate limit on the unauthenticated methods")
struct AuthRateLimitTests {
    @Test("past SECUREPUSH_AUTH_RATE_LIMIT calls a minute an address gets -32029; other addresses are unaffected")
    func limited() async throws {
        let clock = TestClock()
        let auth = try await AuthHarness.make(AuthHarness.configuration(authRateLimit: 3), clock: clock)
        let attacker = auth.rpc(from: outsider)
        for index in 0..<3 {
            let error = try #require(
                await #expect(throws: RPCError.self) {
                    try await attacker.call(Auth.Refresh.self, .init(refreshToken: "unknown-\(index)"))
                })
            #expect(error.code == RPCErrorCode.unauthenticated)
        }
        for method in ["register", "login", "refresh", "clientToken", "logout", "keys"] {
            let error = try #require(
                await #expect(throws: RPCError.self) {
                    switch method {
                    case "register":
                        _ = try await attacker.call(
                            Auth.Register.self, .init(username: "mallory", password: "12345678"))
                    case "login":
                        _ = try await attacker.call(Auth.Login.self, .init(username: "mallory", password: "12345678"))
                    case "refresh": _ = try await attacker.call(Auth.Refresh.self, .init(refreshToken: "x"))
                    case "logout": _ = try await attacker.call(Auth.Logout.self, .init(refreshToken: "x"))
                    case "keys": _ = try await attacker.call(Auth.Keys.self, Empty())
                    default: _ = try await attacker.call(Auth.ClientToken.self, .init(clientId: "x", clientSecret: "y"))
                    }
                }, "\(method)")
            #expect(error.code == RPCErrorCode.rateLimited, "\(method)")
            #expect((retryAfter(error) ?? 0) > 0 && (retryAfter(error) ?? 99) <= 60, "\(method)")
        }
        // Another address is not limited.
        let userID = try await auth.rpc(from: rightfulUser).call(
            Auth.Register.self, .init(username: "alice", password: "correct horse")
        ).userId
        #expect(!userID.isEmpty)
        clock.advance(by: 60)
        await #expect(throws: RPCError.self) { try await attacker.call(Auth.Refresh.self, .init(refreshToken: "x")) }
        let error = try #require(
            await #expect(throws: RPCError.self) {
                try await attacker.call(Auth.Refresh.self, .init(refreshToken: "x"))
            })
        #expect(error.code == RPCErrorCode.unauthenticated)
    }

    @Test("SECUREPUSH_AUTH_RATE_LIMIT=0 turns the limit off")
    func off() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(authRateLimit: 0))
        let caller = auth.rpc(from: outsider)
        for index in 0..<300 {
            let error = try #require(
                await #expect(throws: RPCError.self) {
                    try await caller.call(Auth.Refresh.self, .init(refreshToken: "unknown-\(index)"))
                })
            #expect(error.code == RPCErrorCode.unauthenticated)
        }
    }
}

@Suite("Self-registration")
struct SelfRegistrationTests {
    @Test("SECUREPUSH_SELF_REGISTRATION=false refuses auth.register; an operator-created account signs in")
    func closed() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(selfRegistration: false))
        let error = try #require(await #expect(throws: RPCError.self) { try await auth.register("alice") })
        #expect(error.code == RPCErrorCode.forbidden)
        #expect(error.message.contains("self-registration is closed"))
        let registry = AccountRegistry(
            repository: auth.components.service.repository, hasher: try await PasswordHasher(cost: 10))
        let userID = try await registry.createUser(username: "alice", password: "correct horse")
        #expect(try await auth.login("alice").userId == userID)
    }

    @Test("self-registration is on by default, and the variable is read")
    func defaults() throws {
        #expect(try AuthConfiguration(environment: ServiceEnvironment([:])).selfRegistration)
        #expect(
            try AuthConfiguration(environment: ServiceEnvironment(["SECUREPUSH_SELF_REGISTRATION": "false"]))
                .selfRegistration == false)
        #expect(throws: ConfigurationError.self) {
            try AuthConfiguration(environment: ServiceEnvironment(["SECUREPUSH_SELF_REGISTRATION": "maybe"]))
        }
    }
}

@Suite("Sign-in limits shared by replicas on PostgreSQL")
struct SharedSignInLimitTests {
    @Test(
        "two auth instances on one PostgreSQL share the counters, and reserve atomically across them",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func sharedCounters() async throws {
        try await TestPostgres.withTwoReplicas(serviceName: "auth", migrations: AuthMigrations.all.postgres) {
            first, second in
            var configuration = AuthHarness.configuration(maxFailedLogins: 6, authRateLimit: 0)
            configuration.passwordQueueLength = 100
            configuration.passwordChecksPerAddress = 100
            let one = try await AuthHarness.make(configuration, postgres: first)
            let two = try await AuthHarness.make(configuration, postgres: second)
            try await one.register("alice")
            let replicas = [one, two]
            let codes = await AuthHarness.concurrentOutcomes(20) { index in
                _ = try await replicas[index % 2].login("alice", "wrong password", from: outsider)
            }
            #expect(codes.filter { $0 == RPCErrorCode.unauthenticated }.count == 6)
            #expect(codes.filter { $0 == RPCErrorCode.rateLimited }.count == 14)
            let hashed = await one.components.service.hashing.admitted + two.components.service.hashing.admitted
            #expect(hashed == 1 + 6)  // registration plus the six counted guesses
            for replica in replicas {
                let error = try #require(
                    await #expect(throws: RPCError.self) { try await replica.login("alice", from: outsider) })
                #expect(error.code == RPCErrorCode.rateLimited)
                _ = try await replica.login("alice", from: rightfulUser)
            }
        }
    }
}
