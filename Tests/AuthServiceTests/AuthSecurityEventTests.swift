import AuthService
import Foundation
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Security events of the sign-in limits")
struct AuthSecurityEventTests {
    @Test("limits hit, client tokens issued and closed registration are logged at notice, without secrets")
    func events() async throws {
        let log = RecordedLog()
        let backend = ClientRegistry.Credentials(clientId: "backend", secret: "backend-secret")
        let auth = try await AuthHarness.make(
            AuthHarness.configuration(bootstrapClient: backend, maxFailedLogins: 2, authRateLimit: 6),
            logger: log.logger())
        for _ in 0..<3 {
            await #expect(throws: RPCError.self) { try await auth.login("alice", "wrong password", from: outsider) }
        }
        let throttled = log.securityEvents("auth.login.throttled")
        #expect(throttled.count == 1)
        #expect(throttled.first?.level == .notice)
        #expect(throttled.first?.metadata["client.address"]?.description == outsider)
        #expect(throttled.first?.metadata["auth.limit"]?.description == "account_and_address")

        _ = try await auth.clientToken("backend", "backend-secret", from: rightfulUser)
        let issued = log.securityEvents("auth.client_token.issued")
        #expect(issued.count == 1)
        #expect(issued.first?.metadata["client.id"]?.description == "backend")
        #expect(issued.first?.metadata["auth.scopes"]?.description == "push:send webhooks:manage")

        for _ in 0..<4 { _ = try? await auth.rpc(from: outsider).call(Auth.Refresh.self, .init(refreshToken: "x")) }
        let limited = log.securityEvents("auth.rate_limited")
        #expect(limited.count == 1)
        #expect(limited.first?.metadata["rpc.method"]?.description == "auth.refresh")

        let closed = try await AuthHarness.make(
            AuthHarness.configuration(selfRegistration: false), logger: log.logger())
        await #expect(throws: RPCError.self) {
            try await closed.rpc(from: outsider).call(
                Auth.Register.self, .init(username: "mallory", password: "sekrit-password"))
        }
        #expect(log.securityEvents("auth.register.refused").first?.metadata["client.address"]?.description == outsider)

        let everything = log.all.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        for secret in ["wrong password", "backend-secret", "sekrit-password"] { #expect(!everything.contains(secret)) }
    }

    @Test("an account guessed from many addresses logs that it is being slowed, once")
    func slowed() async throws {
        let log = RecordedLog()
        let limiter = SignInLimiter(
            counters: InMemoryAttemptCounters(), maxFailures: 1, window: 300, requestsPerMinute: 0,
            logger: log.logger(), sleep: { _ in })
        for index in 0..<(SignInLimiter.accountFactor + 3) {
            _ = try await limiter.reserveAttempt(
                .client, account: "push-dispatch", from: "198.51.100.\(index)", at: Date())
        }
        #expect(log.securityEvents("auth.client_token.slowed").count == 1)
    }
}
