import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("device-proof replay cache")
struct ProofReplayCacheTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Each proof id is accepted once while it lives; after its time it may be recorded again. One device's bound (3
    /// here) refuses that device only: another device's proofs are still accepted, and the device gets room back as
    /// its proofs expire.
    func checkContract(_ first: any ProofReplayCache, _ second: any ProofReplayCache) async throws {
        let until = Self.now.addingTimeInterval(61)
        #expect(try await first.firstUse(of: "jti-a", deviceID: "phone", expiresAt: until, now: Self.now) == .first)
        #expect(
            try await first.firstUse(of: "jti-a", deviceID: "phone", expiresAt: until, now: Self.now + 30) == .replayed)
        #expect(
            try await second.firstUse(of: "jti-a", deviceID: "phone", expiresAt: until, now: Self.now + 60) == .replayed
        )
        #expect(try await second.firstUse(of: "jti-b", deviceID: "phone", expiresAt: until, now: Self.now) == .first)
        #expect(try await second.firstUse(of: "jti-a", deviceID: "phone", expiresAt: until + 61, now: until) == .first)

        // The phone fills its bound: its next proof is refused, the laptop's are not.
        for index in 0..<3 {
            #expect(
                try await first.firstUse(of: "flood-\(index)", deviceID: "phone-2", expiresAt: until, now: Self.now)
                    == .first)
        }
        #expect(
            try await second.firstUse(of: "flood-3", deviceID: "phone-2", expiresAt: until, now: Self.now)
                == .deviceQuotaExceeded(limit: 3, retryAfterSeconds: 61))
        #expect(try await second.firstUse(of: "own", deviceID: "laptop", expiresAt: until, now: Self.now) == .first)
        // Once its proofs expire, the phone has room again.
        #expect(
            try await first.firstUse(of: "flood-3", deviceID: "phone-2", expiresAt: until + 61, now: until) == .first)
    }

    @Test("in memory: once per proof; one device's bound refuses only that device; nothing survives a restart")
    func inMemory() async throws {
        let cache = InMemoryProofReplayCache(perDevice: 3)
        try await checkContract(cache, cache)
        #expect(cache.remembersAcrossRestarts == false)
    }

    @Test("in memory: 1,000 devices at their bound are all kept (no global capacity), and expired devices are dropped")
    func noGlobalCapacity() async throws {
        let cache = InMemoryProofReplayCache(perDevice: 120)
        let until = Self.now.addingTimeInterval(61)
        for device in 0..<1_000 {
            for proof in 0..<120 {
                #expect(
                    await cache.firstUse(
                        of: "\(device)-\(proof)", deviceID: "d\(device)", expiresAt: until, now: Self.now)
                        == .first)
            }
        }
        #expect(await cache.deviceCount == 1_000)
        // Every proof replays as a replay, not as a full cache.
        #expect(await cache.firstUse(of: "999-0", deviceID: "d999", expiresAt: until, now: Self.now) == .replayed)
        // After their lifetime, a prune (every 1,024 calls) drops the devices left with nothing.
        for proof in 0..<1_024 {
            _ = await cache.firstUse(of: "late-\(proof)", deviceID: "late", expiresAt: until + 61, now: until)
        }
        #expect(await cache.deviceCount == 1)
    }

    @Test("on SQLite's table: once per proof, bounded per device")
    func sqlite() async throws {
        let database = try ServiceDatabase.sqlite(path: nil, migrations: StoreMigrations.all).sql
        try await checkContract(
            SQLProofReplayCache(database: database, perDevice: 3), SQLProofReplayCache(database: database, perDevice: 3)
        )
    }

    @Test(
        "on PostgreSQL: a proof accepted by one replica is refused by the other; a device's bound counts both replicas",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func replicas() async throws {
        try await TestPostgres.withTwoReplicas(
            serviceName: "notification-store", migrations: StoreMigrations.all.postgres
        ) {
            try await checkContract(
                SQLProofReplayCache(database: PostgresSQLDatabase($0), perDevice: 3),
                SQLProofReplayCache(database: PostgresSQLDatabase($1), perDevice: 3))
        }
    }

    @Test(
        "on PostgreSQL: 20 proofs of one device at once on two replicas, bound 3: exactly 3 accepted",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func concurrentBound() async throws {
        try await TestPostgres.withTwoReplicas(
            serviceName: "notification-store", migrations: StoreMigrations.all.postgres
        ) { first, second in
            let replicas = [
                SQLProofReplayCache(database: PostgresSQLDatabase(first), perDevice: 3),
                SQLProofReplayCache(database: PostgresSQLDatabase(second), perDevice: 3),
            ]
            let until = Self.now.addingTimeInterval(120)
            let outcomes = try await withThrowingTaskGroup(of: ProofUse.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await replicas[index % 2].firstUse(
                            of: "burst-\(index)", deviceID: "phone", expiresAt: until, now: Self.now)
                    }
                }
                return try await group.reduce(into: [ProofUse]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .first }.count == 3)
            #expect(outcomes.filter { if case .deviceQuotaExceeded = $0 { true } else { false } }.count == 17)
        }
    }
}
