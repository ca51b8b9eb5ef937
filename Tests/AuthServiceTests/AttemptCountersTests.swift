import AuthService
import Foundation
import ServiceCore
import TestSupport
import Testing

/// The attempt-counter contract, on memory (the SQLite deployment), on the SQL counters over SQLite, and on
/// PostgreSQL when configured.
@Suite("Attempt counters in memory and in SQL")
struct AttemptCountersTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Where the counts are kept.
    enum Store: String, CaseIterable, CustomStringConvertible {
        case memory, sqlite, postgres
        var description: String { rawValue }
        static var all: [Store] { TestPostgres.isConfigured ? allCases : [.memory, .sqlite] }
    }

    func withCounters(_ backend: Store, _ body: (any AttemptCounters) async throws -> Void) async throws {
        switch backend {
        case .memory:
            try await body(InMemoryAttemptCounters())
        case .sqlite:
            try await body(
                SQLAttemptCounters(database: try ServiceDatabase.sqlite(path: nil, migrations: AuthMigrations.all).sql))
        case .postgres:
            try await TestPostgres.withDatabase(serviceName: "auth", migrations: AuthMigrations.all.postgres) {
                try await body(SQLAttemptCounters(database: PostgresSQLDatabase($0)))
            }
        }
    }

    @Test(
        "reserve counts up to the limit, then refuses until the window ends; release, reset and purge",
        arguments: Store.all)
    func contract(backend: Store) async throws {
        try await withCounters(backend) { counters in
            let now = Self.start
            #expect(try await counters.reserve("k", limit: 2, window: 60, at: now) == .counted(1))
            #expect(try await counters.reserve("k", limit: 2, window: 60, at: now + 10) == .counted(2))
            #expect(
                try await counters.reserve("k", limit: 2, window: 60, at: now + 20) == .refused(retryAfterSeconds: 40))
            try await counters.release("k", at: now + 20)
            #expect(try await counters.reserve("k", limit: 2, window: 60, at: now + 20) == .counted(2))
            // The window is counted from the first attempt, not extended by later ones.
            #expect(try await counters.reserve("k", limit: 2, window: 60, at: now + 60) == .counted(1))
            try await counters.reset("k")
            #expect(try await counters.reserve("k", limit: 2, window: 60, at: now + 61) == .counted(1))
            #expect(try await counters.reserve("other", limit: 5, window: 300, at: now + 61) == .counted(1))
            #expect(try await counters.purge(expiredBefore: now + 200) == 1)
            #expect(
                try await counters.reserve("other", limit: 1, window: 300, at: now + 200)
                    == .refused(retryAfterSeconds: 161))
        }
    }

    @Test("concurrent reservations never pass the limit together", arguments: Store.all)
    func concurrent(backend: Store) async throws {
        try await withCounters(backend) { counters in
            let outcomes = try await withThrowingTaskGroup(of: AttemptCount.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await counters.reserve("k", limit: 7, window: 60, at: Self.start) }
                }
                return try await group.reduce(into: [AttemptCount]()) { $0.append($1) }
            }
            #expect(Set(outcomes.compactMap { if case .counted(let n) = $0 { n } else { nil } }) == Set(1...7))
            #expect(outcomes.filter { $0 == .refused(retryAfterSeconds: 60) }.count == 23)
        }
    }
}
