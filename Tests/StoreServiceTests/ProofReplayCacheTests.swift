import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("device-proof replay cache")
struct ProofReplayCacheTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Each proof id is accepted once while it lives; after its time it may be recorded again.
    func checkContract(_ first: any ProofReplayCache, _ second: any ProofReplayCache) async throws {
        let until = Self.now.addingTimeInterval(61)
        #expect(try await first.firstUse(of: "jti-a", expiresAt: until, now: Self.now))
        #expect(try await !first.firstUse(of: "jti-a", expiresAt: until, now: Self.now.addingTimeInterval(30)))
        #expect(try await !second.firstUse(of: "jti-a", expiresAt: until, now: Self.now.addingTimeInterval(60)))
        #expect(try await second.firstUse(of: "jti-b", expiresAt: until, now: Self.now))
        #expect(try await second.firstUse(of: "jti-a", expiresAt: until + 61, now: until))
    }

    @Test("in memory: once per proof, and full means refused, never forgotten early")
    func inMemory() async throws {
        let cache = InMemoryProofReplayCache(capacity: 2)
        try await checkContract(cache, cache)
        let full = InMemoryProofReplayCache(capacity: 2)
        let until = Self.now.addingTimeInterval(61)
        #expect(await full.firstUse(of: "jti-1", expiresAt: until, now: Self.now))
        #expect(await full.firstUse(of: "jti-2", expiresAt: until, now: Self.now))
        #expect(await !full.firstUse(of: "jti-3", expiresAt: until, now: Self.now))
        // Once the live entries expire, room is made.
        #expect(await full.firstUse(of: "jti-3", expiresAt: until + 61, now: until))
    }

    @Test("on SQLite's table: once per proof")
    func sqlite() async throws {
        let database = try ServiceDatabase.sqlite(path: nil, migrations: StoreMigrations.all).sql
        try await checkContract(SQLProofReplayCache(database: database), SQLProofReplayCache(database: database))
    }

    @Test(
        "on PostgreSQL: a proof accepted by one replica is refused by the other",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func replicas() async throws {
        try await TestPostgres.withTwoReplicas(
            serviceName: "notification-store", migrations: StoreMigrations.all.postgres
        ) {
            try await checkContract(
                SQLProofReplayCache(database: PostgresSQLDatabase($0)),
                SQLProofReplayCache(database: PostgresSQLDatabase($1)))
        }
    }
}
