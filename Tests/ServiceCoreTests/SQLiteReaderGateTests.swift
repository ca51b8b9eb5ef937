import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ServiceCore

/// Reads on the calling thread (the store's fetch on the event loop, push-dispatch's device lookups in tasks) must
/// never wait for a SQLite reader: GRDB's async reads hold theirs until their task resumes, and with the cooperative
/// pool's threads blocked waiting, none could. push-dispatch hung that way with 10,000 event streams opening at once.
@Suite("SQLite reads on the calling thread never wait for a reader connection")
struct SQLiteReaderGateTests {
    /// How many holders run their read's body (GRDB gave them a reader).
    final class Holders: Sendable {
        let entered = Mutex(0)
        var count: Int { entered.withLock { $0 } }
    }

    /// A fresh SQLite file (so that reads go to the pool's reader connections, as in production) with a `probe` table;
    /// the caller removes `directory`.
    static func probeDatabase() throws -> (directory: URL, database: ServiceDatabase, sql: SQLiteSQLDatabase) {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("readers-\(UUID().uuidString)")
        let database = try ServiceDatabase.sqlite(
            path: directory.appendingPathComponent("probe.sqlite").path,
            migrations: [SQLMigration("v1", ["CREATE TABLE probe (id TEXT PRIMARY KEY)"])])
        return (directory, database, try #require(database.sql as? SQLiteSQLDatabase))
    }

    /// Async reads whose bodies block their reader's queue until `release` is signalled once per task: the pool is
    /// exhausted when this returns.
    static func holdEveryReader(of sql: SQLiteSQLDatabase) async throws -> (
        release: DispatchSemaphore, held: [Task<Void, any Error>]
    ) {
        let capacity = sql.readers.capacity
        let release = DispatchSemaphore(value: 0)
        let holders = Holders()
        let held = (0..<capacity).map { _ in
            Task {
                try await sql.onReader { _ in
                    holders.entered.withLock { $0 += 1 }
                    release.wait()
                }
            }
        }
        for _ in 0..<3000 where holders.count < capacity { try await Task.sleep(for: .milliseconds(10)) }
        #expect(holders.count == capacity)
        return (release, held)
    }

    @Test(
        "with every GRDB reader held, a read on the calling thread still answers at once on a direct connection",
        .timeLimit(.minutes(1)))
    func directReadersAnswerBesideBusyPool() async throws {
        let (directory, _, sql) = try Self.probeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await sql.execute("INSERT INTO probe (id) VALUES (?)", ["a"])
        let capacity = sql.readers.capacity
        let (release, held) = try await Self.holdEveryReader(of: sql)
        let answer = await Self.onOwnThread(within: .seconds(10)) { () -> [String]? in
            try? sql.readImmediately("SELECT id FROM probe WHERE id = ?", ["a"])?.map { try $0.decode(0) }
        }
        #expect(answer == .some(["a"]), "read on a direct connection, beside the pool's busy readers")
        #expect(sql.readers.count == capacity, "a direct read takes none of the pool's readers")
        for _ in 0..<capacity { release.signal() }
        for task in held { try await task.value }
    }

    @Test(
        "with every reader held, a read on the calling thread answers nil at once and the async fallback waits its turn",
        .timeLimit(.minutes(1)))
    func busyReaders() async throws {
        let (directory, _, direct) = try Self.probeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        // GRDB's readers only: what a read on the calling thread falls back to when every direct connection is in use.
        let sql = SQLiteSQLDatabase(direct.writer, directReaders: 0)
        _ = try await sql.execute("INSERT INTO probe (id) VALUES (?)", ["a"])
        let capacity = sql.readers.capacity
        #expect(capacity == 5, "GRDB's default pool of readers")

        let (release, held) = try await Self.holdEveryReader(of: sql)

        // Before the gate this call blocked for a reader (forever, when the holders needed its thread to finish). It
        // runs on a thread of its own here, so that a regression fails this test instead of hanging the test run.
        let answer = await Self.onOwnThread(within: .seconds(10)) { () -> String in
            do {
                return try sql.readImmediately("SELECT id FROM probe", []) == nil ? "nil" : "rows"
            } catch {
                return "error: \(error)"
            }
        }
        #expect(answer == "nil", "nil at once; no answer within 10 s means it waited for a reader")
        #expect(sql.readers.count == capacity, "a refused read counts nothing")

        // The async fallback queues for a reader instead of blocking a thread.
        let fallback = Task { try await sql.readImmediatelyIfPossible("SELECT id FROM probe", []) }
        for _ in 0..<3000 where sql.readers.count < capacity + 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(sql.readers.count == capacity + 1)

        for _ in 0..<capacity { release.signal() }
        for task in held { try await task.value }
        #expect(try await fallback.value.count == 1)
        #expect(try sql.readImmediately("SELECT id FROM probe", [])?.count == 1, "a reader is idle again")
        #expect(sql.readers.count == 0, "every read gave its reader back")
    }

    /// Runs `body` on a dispatch thread and returns what it returned, or `nil` when it has not returned `within`
    /// (it is left blocked then). Polls without blocking a thread of the cooperative pool.
    static func onOwnThread<T: Sendable>(within limit: Duration, _ body: @escaping @Sendable () -> T) async -> T? {
        let result = Outcome<T>()
        DispatchQueue.global().async {
            let value = body()
            result.value.withLock { $0 = value }
        }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = result.value.withLock({ $0 }) { return value }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// What a body run by ``onOwnThread(within:_:)`` returned, once it has.
    final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }

    @Test("a failing read gives its count back, on either path")
    func failedReadsLeave() async throws {
        let (directory, database, sql) = try Self.probeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: (any Error).self) { try sql.readImmediately("SELECT nothing FROM nowhere", []) }
        await #expect(throws: (any Error).self) { try await sql.read("SELECT nothing FROM nowhere", []) }
        #expect(sql.readers.count == 0)
        #expect(await database.readiness() == "ok")
    }
}
