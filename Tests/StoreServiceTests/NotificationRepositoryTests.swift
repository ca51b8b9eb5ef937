import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

/// The repository contract, run against every backend: SQLite always, PostgreSQL when configured.
@Suite("Notification repository on SQLite and PostgreSQL")
struct NotificationRepositoryTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    /// Every repository of a test seals under the same keys, as replicas reading one key file do.
    let sealer = AESGCMPayloadSealer(ring: .generate())

    /// Runs `body` with a fresh repository on `backend`.
    func withRepository(
        _ backend: TestDatabaseBackend, _ body: (any NotificationRepository) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            let database = try ServiceDatabase.sqlite(path: nil, migrations: StoreMigrations.all)
            try await body(SQLNotificationRepository(database: database.sql, sealer: sealer))
        case .postgres:
            try await TestPostgres.withDatabase(
                serviceName: "notification-store", migrations: StoreMigrations.all.postgres
            ) {
                try await body(SQLNotificationRepository(database: PostgresSQLDatabase($0), sealer: sealer))
            }
        }
    }

    func record(
        _ id: String, to recipient: String = "ada", createdAfter seconds: TimeInterval = 0, ttl: TimeInterval = 3600,
        payload: String = "secret"
    ) -> NotificationRecord {
        NotificationRecord(
            metadata: .init(
                id: id, recipientID: recipient, createdAt: Self.start.addingTimeInterval(seconds),
                expiresAt: Self.start.addingTimeInterval(seconds + ttl)),
            payload: payload)
    }

    @Test("a stored payload comes back to its recipient only, byte for byte", arguments: TestPostgres.backends)
    func roundTrip(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            let payload = "Kontostand: 1 234,56 € — 🔐 \u{0000} end"
            try await repository.insert(record("n1", payload: payload))
            let found = try await repository.find(id: "n1", recipientID: "ada", now: Self.start)
            #expect(found?.payload == payload)
            #expect(found?.metadata.createdAt == Self.start)
            #expect(found?.metadata.readAt == nil)
            #expect(try await repository.find(id: "n1", recipientID: "eve", now: Self.start) == nil)
            #expect(try await repository.find(id: "missing", recipientID: "ada", now: Self.start) == nil)
        }
    }

    @Test("a duplicate id is refused", arguments: TestPostgres.backends)
    func duplicateID(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            try await repository.insert(record("n1"))
            await #expect(throws: (any Error).self) { try await repository.insert(record("n1", to: "eve")) }
            #expect(try await repository.find(id: "n1", recipientID: "ada", now: Self.start) != nil)
        }
    }

    @Test("an expired notification is invisible and purged; a live one is kept", arguments: TestPostgres.backends)
    func expiry(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            try await repository.insert(record("short", ttl: 60))
            try await repository.insert(record("long", ttl: 3600))
            let later = Self.start.addingTimeInterval(61)
            #expect(try await repository.find(id: "short", recipientID: "ada", now: later) == nil)
            #expect(
                try await repository.list(recipientID: "ada", unreadOnly: false, after: nil, limit: 10, now: later)
                    .map(\.id) == ["long"])
            #expect(try await repository.deleteExpired(now: later) == 1)
            #expect(try await repository.deleteExpired(now: later) == 0)
            #expect(try await repository.find(id: "long", recipientID: "ada", now: later) != nil)
        }
    }

    @Test(
        "listing is newest first, keyset-paged without gaps or repeats, unread filter", arguments: TestPostgres.backends
    )
    func listing(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            // Two share a timestamp: the id breaks the tie.
            for (id, offset) in [("a", 1.0), ("b", 2.0), ("c", 2.0), ("d", 3.0), ("e", 4.0)] {
                try await repository.insert(record(id, createdAfter: offset))
            }
            try await repository.insert(record("other", to: "eve", createdAfter: 5))
            let now = Self.start.addingTimeInterval(10)
            var seen: [String] = []
            var cursor: ListCursor?
            for _ in 0..<10 {
                let page = try await repository.list(
                    recipientID: "ada", unreadOnly: false, after: cursor, limit: 2, now: now)
                seen += page.map(\.id)
                guard page.count == 2, let last = page.last else { break }
                cursor = ListCursor(after: last)
            }
            #expect(seen == ["e", "d", "c", "b", "a"])
            _ = try await repository.markRead(id: "d", recipientID: "ada", at: now, now: now)
            #expect(
                try await repository.list(recipientID: "ada", unreadOnly: true, after: nil, limit: 10, now: now)
                    .map(\.id) == ["e", "c", "b", "a"])
        }
    }

    @Test("markRead keeps the first time; delete is the recipient's alone", arguments: TestPostgres.backends)
    func markReadAndDelete(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            try await repository.insert(record("n1"))
            let first = Self.start.addingTimeInterval(5)
            #expect(try await repository.markRead(id: "n1", recipientID: "ada", at: first, now: first) == first)
            let second = Self.start.addingTimeInterval(9)
            #expect(try await repository.markRead(id: "n1", recipientID: "ada", at: second, now: second) == first)
            #expect(try await repository.markRead(id: "n1", recipientID: "eve", at: second, now: second) == nil)
            #expect(try await repository.delete(id: "n1", recipientID: "eve", now: second) == false)
            #expect(try await repository.delete(id: "n1", recipientID: "ada", now: second) == true)
            #expect(try await repository.delete(id: "n1", recipientID: "ada", now: second) == false)
        }
    }

    @Test(
        "on PostgreSQL, several replicas purging at once delete each row once, one replica at a time",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func concurrentPurge() async throws {
        try await TestPostgres.withTwoReplicas(
            serviceName: "notification-store", migrations: StoreMigrations.all.postgres
        ) { first, second in
            let repositories = [
                SQLNotificationRepository(database: PostgresSQLDatabase(first), sealer: sealer),
                SQLNotificationRepository(database: PostgresSQLDatabase(second), sealer: sealer),
            ]
            for index in 0..<200 { try await repositories[index % 2].insert(record("n\(index)", ttl: 60)) }
            let later = Self.start.addingTimeInterval(120)
            let purged = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<6 { group.addTask { try await repositories[index % 2].deleteExpired(now: later) } }
                return try await group.reduce(0, +)
            }
            #expect(purged == 200)
            #expect(try await repositories[0].deleteExpired(now: later) == 0)
        }
    }
}

@Suite("PostgreSQL migrations", .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct PostgresMigrationTests {
    @Test("replicas starting at the same moment apply each migration exactly once and all become ready")
    func concurrentStart() async throws {
        let url = try TestPostgres.isolatedURL()
        let migrations =
            StoreMigrations.all.postgres + [
                PostgresMigration("v2 test", ["CREATE TABLE migration_probe (replica TEXT)"]),
                // Not idempotent by itself: run twice, it would leave two rows.
                PostgresMigration("v3 test", ["INSERT INTO migration_probe (replica) VALUES ('migration')"]),
            ]
        // The owner only drops the schema at the end; the four replicas start together inside it.
        let (ready, applied) = try await TestPostgres.withDatabase(
            serviceName: "probe-owner", migrations: [], url: url
        ) { owner in
            let ready = try await startReplicas(migrations: migrations, url: url)
            let applied = try await owner.withClient { client in
                var count: Int64 = -1
                for try await value in try await client.query(
                    "SELECT count(*) FROM migration_probe WHERE replica = 'migration'"
                ).decode(Int64.self) {
                    count = value
                }
                return count
            }
            return (ready, applied)
        }
        #expect(ready == [true, true, true, true])
        #expect(applied == 1)
    }

    private func startReplicas(migrations: [PostgresMigration], url: PostgresURL) async throws -> [Bool] {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await TestPostgres.withDatabase(
                        serviceName: "notification-store", migrations: migrations, url: url, dropSchema: false
                    ) { database in
                        // A query waits for the migrations; the table exists once, whoever created it.
                        try await database.withClient { client in
                            try await client.query("INSERT INTO migration_probe (replica) VALUES ('replica')")
                        }
                        return await database.readiness() == "ok"
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
    }

    @Test("an unreachable database keeps the service unready, and queries fail instead of hanging")
    func unreachable() async throws {
        let url = try PostgresURL("postgres://nobody@127.0.0.1:1/none?sslmode=disable")
        try await TestPostgres.withDatabase(
            serviceName: "notification-store", migrations: [], url: url, timeout: .seconds(1)
        ) { database in
            try await Task.sleep(for: .milliseconds(300))
            #expect(await database.readiness() != "ok")
            await #expect(throws: PostgresTimeoutError.self) {
                try await database.withClient { client in try await client.query("SELECT 1") }
            }
        }
    }
}

extension NotificationRepositoryTests {
    @Test(
        "insert stores many in one call; a writer key held already keeps its first notification, also within one call",
        arguments: TestPostgres.backends)
    func insertManyWithWriterKeys(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            var first = record(UUID().uuidString.lowercased(), to: "ada")
            first.writerKey = "key-ada"
            let plain = record(UUID().uuidString.lowercased(), to: "bob")
            let stored = try await repository.insert([first, plain])
            #expect(stored.map(\.id) == [first.metadata.id, plain.metadata.id])

            var retried = record(UUID().uuidString.lowercased(), to: "ada", createdAfter: 5)
            retried.writerKey = "key-ada"
            var twiceA = record(UUID().uuidString.lowercased(), to: "cy")
            twiceA.writerKey = "key-cy"
            var twiceB = record(UUID().uuidString.lowercased(), to: "cy")
            twiceB.writerKey = "key-cy"
            let again = try await repository.insert([retried, twiceA, twiceB])
            #expect(again.map(\.id) == [first.metadata.id, twiceA.metadata.id, twiceA.metadata.id])
            #expect(again[0].createdAt == first.metadata.createdAt)
            #expect(try await repository.find(id: retried.metadata.id, recipientID: "ada", now: Self.start) == nil)
            #expect(
                try await repository.find(id: first.metadata.id, recipientID: "ada", now: Self.start)?.payload
                    == "secret")
            // 250 rows: several multi-row statements in one transaction.
            let many = (0..<250).map { record(UUID().uuidString.lowercased(), to: "user-\($0)") }
            #expect(try await repository.insert(many).map(\.id) == many.map(\.metadata.id))
        }
    }
}
