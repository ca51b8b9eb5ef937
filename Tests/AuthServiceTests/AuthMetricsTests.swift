import Foundation
import MetricsTestKit
import SharedModels
import Testing

@Suite("auth metrics")
struct AuthMetricsTests {
    @Test("auth.login counts by outcome: ok, wrong password, and refused by the failure limit")
    func loginOutcomes() async throws {
        let metrics = TestMetrics()
        let auth = try await AuthHarness.make(AuthHarness.configuration(maxFailedLogins: 2), metrics: metrics)
        _ = try await auth.register("alice")
        _ = try await auth.login("alice", from: "127.0.0.2")
        for _ in 0..<3 { _ = try? await auth.login("alice", "wrong password", from: "127.0.0.3") }
        func logins(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter("securepush_auth_logins_total", [("outcome", outcome)]).totalValue
        }
        #expect(try logins("ok") == 1)
        #expect(try logins("unauthenticated") == 2)
        #expect(try logins("rate_limited") == 1)
        #expect(
            try metrics.expectCounter("securepush_auth_rate_limited_total", [("limit", "attempts")]).totalValue == 1)
    }

    @Test("auth.clientToken counts by outcome, and the per-minute limit counts its refusals")
    func clientTokensAndRequestLimit() async throws {
        let metrics = TestMetrics()
        let auth = try await AuthHarness.make(
            AuthHarness.configuration(
                bootstrapClient: .init(clientId: "backend", secret: "backend-secret-0123456789abcdef-0123456789"),
                authRateLimit: 3),
            metrics: metrics)
        _ = try await auth.clientToken("backend", "backend-secret-0123456789abcdef-0123456789", from: "127.0.0.2")
        _ = try? await auth.clientToken("backend", "not the secret at all", from: "127.0.0.2")
        for _ in 0..<2 { _ = try? await auth.clientToken("backend", "whatever", from: "127.0.0.2") }
        func tokens(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter("securepush_auth_client_tokens_total", [("outcome", outcome)]).totalValue
        }
        #expect(try tokens("ok") == 1)
        #expect(try tokens("unauthenticated") == 2)
        #expect(try tokens("rate_limited") == 1)
        #expect(
            try metrics.expectCounter("securepush_auth_rate_limited_total", [("limit", "requests")]).totalValue == 1)
    }

    @Test("presenting a spent refresh token counts as refresh-token reuse")
    func refreshReuse() async throws {
        let metrics = TestMetrics()
        let auth = try await AuthHarness.make(metrics: metrics)
        _ = try await auth.register("alice")
        let grant = try await auth.login("alice")
        _ = try await auth.refresh(grant.refreshToken)
        #expect(try metrics.expectCounter("securepush_auth_refresh_reuse_total").totalValue == 0)
        _ = try? await auth.refresh(grant.refreshToken)
        #expect(try metrics.expectCounter("securepush_auth_refresh_reuse_total").totalValue == 1)
    }
}
