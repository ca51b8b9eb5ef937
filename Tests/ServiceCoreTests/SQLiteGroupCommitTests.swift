import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ServiceCore

/// Concurrent SQLite transactions share one commit (issue 33's send path): a caller returns only once what it wrote
/// is committed, one transaction's failure loses only its own statements, and an error that ends SQLite's transaction
/// fails every transaction of the group.
@Suite("SQLite group commit", .timeLimit(.minutes(1)))
struct SQLiteGroupCommitTests {
    struct Refused: Error {}

    /// Runs `body` with a fresh SQLite file holding a `probe` table.
    func withDatabase(_ body: (SQLiteSQLDatabase) async throws -> Void) async throws {
        let (directory, _, sql) = try SQLiteReaderGateTests.probeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(sql)
    }

    static func insert(_ id: String, _ db: any SQLTransaction) async throws {
        _ = try await db.execute("INSERT INTO probe (id) VALUES (?)", [id])
    }

    static func ids(_ sql: SQLiteSQLDatabase) async throws -> [String] {
        try await sql.read("SELECT id FROM probe ORDER BY id", []).map { try $0.decode(0, as: String.self) }
    }

    /// A transaction that holds the writer until `waiting` calls are queued (itself included), so that those join
    /// its group; returns once it holds the writer.
    static func holdWriter(
        _ sql: SQLiteSQLDatabase, until waiting: Int, inserting id: String
    ) async -> Task<Void, any Error> {
        let inside = Atomic<Bool>(false)
        let holder = Task {
            try await sql.transaction { db in
                try await insert(id, db)
                inside.store(true, ordering: .relaxed)
                let queued = await eventually { sql.committer.queuedCount >= waiting }
                #expect(queued, "\(waiting - 1) calls never queued behind the writer")
            }
        }
        #expect(await eventually { inside.load(ordering: .relaxed) })
        return holder
    }

    @Test("200 concurrent transactions share commits, and each is committed (read back on a reader) when it returns")
    func concurrentTransactionsShareCommits() async throws {
        try await withDatabase { sql in
            let before = sql.committer.commitCount
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let id = "t\(index)"
                        try await sql.transaction { db in
                            await Task.yield()
                            try await Self.insert(id, db)
                        }
                        // Another connection (a reader) sees it: the call returned after the commit.
                        let row = try await sql.readOne("SELECT id FROM probe WHERE id = ?", [id])
                        #expect(try row?.decode(0, as: String.self) == id)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await Self.ids(sql).count == 200)
            let commits = sql.committer.commitCount - before
            #expect(commits > 0)
            #expect(commits < 200, "no two transactions shared a commit")
            #expect(sql.committer.queuedCount == 0)
        }
    }

    @Test("a transaction that throws inside a group loses only its own statements; the others commit together")
    func failingMemberLosesOnlyItsOwn() async throws {
        try await withDatabase { sql in
            let before = sql.committer.commitCount
            let holder = await Self.holdWriter(sql, until: 4, inserting: "a")
            let members = ["b", "c", "d"].map { id in
                Task {
                    try await sql.transaction { db in
                        try await Self.insert(id, db)
                        if id == "c" { throw Refused() }
                    }
                }
            }
            try await holder.value
            try await members[0].value
            await #expect(throws: Refused.self) { try await members[1].value }
            try await members[2].value
            #expect(try await Self.ids(sql) == ["a", "b", "d"])
            #expect(sql.committer.commitCount - before == 1, "the four transactions did not share one commit")
            // Single statements join groups the same way and keep working after one.
            #expect(try await sql.execute("INSERT INTO probe (id) VALUES (?)", ["e"]) == 1)
            #expect(try await Self.ids(sql) == ["a", "b", "d", "e"])
        }
    }

    @Test("an error that ends SQLite's transaction fails every transaction of the group, and nothing of it commits")
    func rolledBackTransactionFailsTheGroup() async throws {
        try await withDatabase { sql in
            let holder = await Self.holdWriter(sql, until: 2, inserting: "a")
            let breaker = Task {
                try await sql.transaction { db in
                    try await Self.insert("b", db)
                    // What SQLite does itself on SQLITE_FULL or SQLITE_IOERR: the whole transaction is rolled back.
                    _ = try await db.execute("ROLLBACK", [])
                    throw Refused()
                }
            }
            await #expect(throws: Refused.self) { try await breaker.value }
            // "a" ran first and was told nothing yet: it learns that its group was rolled back, and why.
            let error = await #expect(throws: SQLiteGroupRollback.self) { try await holder.value }
            #expect(error?.cause is Refused)
            #expect(try await Self.ids(sql).isEmpty)
            try await sql.transaction { db in try await Self.insert("c", db) }
            #expect(try await Self.ids(sql) == ["c"])
        }
    }

    @Test("a cancelled transaction in a group is rolled back to its savepoint; the next one commits the group")
    func cancelledMember() async throws {
        try await withDatabase { sql in
            let started = Atomic<Bool>(false)
            let holder = await Self.holdWriter(sql, until: 3, inserting: "a")
            let cancelled = Task {
                try await sql.transaction { db in
                    try await Self.insert("b", db)
                    started.store(true, ordering: .relaxed)
                    try await Task.sleep(for: .seconds(60))
                }
            }
            let last = Task {
                // Queued after the cancelled one (the lock is first come, first served).
                _ = await eventually { sql.committer.queuedCount >= 2 }
                try await sql.transaction { db in try await Self.insert("c", db) }
            }
            #expect(await eventually { started.load(ordering: .relaxed) })
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            try await holder.value
            try await last.value
            #expect(try await Self.ids(sql) == ["a", "c"])
        }
    }

    @Test("a checkpoint queued behind an open group commits it first")
    func checkpointCommitsTheOpenGroup() async throws {
        try await withDatabase { sql in
            let holder = await Self.holdWriter(sql, until: 2, inserting: "a")
            let checkpoint = Task { try await sql.purgeErasedBytes() }
            try await holder.value
            try await checkpoint.value
            #expect(try await Self.ids(sql) == ["a"])
            #expect(sql.committer.queuedCount == 0)
        }
    }

    @Test("a group holds at most 32 transactions: 41 queued at once take exactly two commits")
    func groupSizeIsCapped() async throws {
        try await withDatabase { sql in
            let before = sql.committer.commitCount
            let holder = await Self.holdWriter(sql, until: 41, inserting: "holder")
            let members = (0..<40).map { index in
                Task { try await sql.transaction { db in try await Self.insert("m\(index)", db) } }
            }
            try await holder.value
            for member in members { try await member.value }
            #expect(try await Self.ids(sql).count == 41)
            #expect(sql.committer.commitCount - before == 2)
        }
    }

    @Test("a body that goes on after SQLite rolled its transaction back is told so; the next transaction commits alone")
    func swallowedRollbackFailsTheGroup() async throws {
        try await withDatabase { sql in
            let inside = Atomic<Bool>(false)
            let first = Task {
                try await sql.transaction { db in
                    try await Self.insert("a", db)
                    inside.store(true, ordering: .relaxed)
                    _ = await eventually { sql.committer.queuedCount >= 2 }
                    // As SQLite does on SQLITE_FULL; a body that caught that error and returned would look like this.
                    _ = try await db.execute("ROLLBACK", [])
                }
            }
            #expect(await eventually { inside.load(ordering: .relaxed) })
            let next = Task { try await sql.transaction { db in try await Self.insert("b", db) } }
            await #expect(throws: SQLiteGroupRollback.self) { try await first.value }
            try await next.value
            #expect(try await Self.ids(sql) == ["b"])
        }
    }
}
