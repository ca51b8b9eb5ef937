import Foundation
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

/// Fetches with a device proof are bounded per client address (`SECUREPUSH_STORE_PROOF_RATE_LIMIT`, issue 24).
@Suite("device proofs per client address")
struct ProofRateLimiterTests {
    /// The limiter's contract on `counters` (two limiters on one store of counts: two replicas).
    func checkContract(_ first: ProofRateLimiter, _ second: ProofRateLimiter, clock: TestClock) async throws {
        for limiter in [first, second, first] { try await limiter.admit(address: "192.0.2.7") }
        let refused = await #expect(throws: StoreError.self) { try await second.admit(address: "192.0.2.7") }
        #expect(refused?.rpcError.code == RPCErrorCode.rateLimited)
        #expect(refused?.rpcError.data?["quota"] == .string("proofsPerAddress"))
        #expect(refused?.rpcError.data?["limit"] == .int(3))
        #expect(refused?.rpcError.data?["retryAfterSeconds"] == .int(60))
        // Another address is unaffected; one IPv6 host counts by its /64, however it rotates its address.
        try await first.admit(address: "192.0.2.8")
        for address in ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::9"] {
            try await first.admit(address: address)
        }
        await #expect(throws: StoreError.self) { try await first.admit(address: "2001:db8:1:2::abcd") }
        try await first.admit(address: "2001:db8:1:3::1")
        // A minute later the address has room again.
        clock.advance(by: 60)
        try await second.admit(address: "192.0.2.7")
    }

    @Test("in one process (SQLite): 3 per minute, then -32029 {quota: proofsPerAddress} for that address only")
    func inMemory() async throws {
        let clock = TestClock()
        let counters = InMemoryAttemptCounters()
        try await checkContract(
            ProofRateLimiter(counters: counters, perMinute: 3, now: { clock.now }),
            ProofRateLimiter(counters: counters, perMinute: 3, now: { clock.now }), clock: clock)
    }

    @Test(
        "on PostgreSQL: the count is shared by the store replicas",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func replicas() async throws {
        try await TestPostgres.withTwoReplicas(
            serviceName: "notification-store", migrations: StoreMigrations.all.postgres
        ) { first, second in
            let clock = TestClock()
            try await checkContract(
                ProofRateLimiter(
                    counters: SQLAttemptCounters(database: PostgresSQLDatabase(first), table: ProofRateLimiter.table),
                    perMinute: 3,
                    now: { clock.now }),
                ProofRateLimiter(
                    counters: SQLAttemptCounters(database: PostgresSQLDatabase(second), table: ProofRateLimiter.table),
                    perMinute: 3,
                    now: { clock.now }), clock: clock)
        }
    }

    @Test("store.get: proofs from one address past the limit are -32029, valid or not; another address still fetches")
    func storeGet() async throws {
        var configuration = StoreConfiguration()
        configuration.proofRateLimit = 2
        let harness = try await StoreHarness(configuration: configuration)
        let phone = TestDevice()
        let put = try await harness.put(to: "alice", payload: "balance", sealedTo: [phone])
        let nid = put.notificationId
        let forged = try phone.proof(for: nid, at: harness.clock.now, signer: .init())
        let invalid = await rpcError {
            try await harness.get(nid, device: phone.id, proof: forged, from: "198.51.100.4")
        }
        #expect(invalid?.code == RPCErrorCode.unauthenticated)
        _ = try await harness.get(
            nid, device: phone.id, proof: try phone.proof(for: nid, at: harness.clock.now), from: "198.51.100.4")
        let limited = await rpcError {
            try await harness.get(
                nid, device: phone.id, proof: try phone.proof(for: nid, at: harness.clock.now), from: "198.51.100.4")
        }
        #expect(limited?.code == RPCErrorCode.rateLimited)
        #expect(limited?.data?["quota"] == .string("proofsPerAddress"))
        #expect(limited?.message == "Quota exceeded: proofsPerAddress is limited to 2 per minute")
        let elsewhere = try await harness.get(
            nid, device: phone.id, proof: try phone.proof(for: nid, at: harness.clock.now), from: "198.51.100.5")
        #expect(try phone.open(elsewhere) == "balance")
    }
}
