import Foundation
import TestSupport
import Testing

@testable import ServiceCore

/// The read-only connections the event loops read on (``SQLiteDirectReaders``) give what GRDB's readers give, see
/// every commit, and can change nothing.
@Suite("SQLite reads on connections of the calling thread's own")
struct SQLiteDirectReadersTests {
    static func database() throws -> (directory: URL, sql: SQLiteSQLDatabase) {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("direct-\(UUID().uuidString)")
        let database = try ServiceDatabase.sqlite(
            path: directory.appendingPathComponent("direct.sqlite").path,
            migrations: [
                SQLMigration("v1", ["CREATE TABLE item (id TEXT PRIMARY KEY, number INTEGER, body BLOB, note TEXT)"])
            ])
        return (directory, try #require(database.sql as? SQLiteSQLDatabase))
    }

    @Test("every kind of value reads back as the pool's readers read it, binds of every kind included")
    func valuesMatchThePool() async throws {
        let (directory, sql) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(sql.direct != nil, "a file database reads on direct connections")
        let rows: [[any SQLBindable]] = [
            ["plain", Int64.max, Data([0, 1, 2, 255]), "é😀 \"quoted\" \\ \n"],
            ["empty", Int64.min, Data(), ""],
            ["zero-byte", 0, Data([0]), "tab\tand\u{1}control"],
        ]
        for row in rows {
            _ = try await sql.execute("INSERT INTO item (id, number, body, note) VALUES (?, ?, ?, ?)", row)
        }
        _ = try await sql.execute("INSERT INTO item (id) VALUES (?)", ["nulls"])
        let query = "SELECT id, number, body, note FROM item WHERE id = ? OR number = ? OR body = ? ORDER BY id"
        let binds: [any SQLBindable] = ["nulls", Int64.min, Data([0])]
        let direct = try #require(try sql.direct?.read(query, binds))
        #expect(direct.count == 3)
        #expect(direct == (try await sql.read(query, binds)))
        let everything = "SELECT id, number, body, note FROM item ORDER BY id"
        #expect(try sql.direct?.read(everything, []) == (try await sql.read(everything, [])))
        let zero = try #require(direct.first { (try? $0.decode(0, as: String.self)) == "zero-byte" })
        #expect(try zero.decode(3, as: String.self) == "tab\tand\u{1}control")
        #expect(zero.values[2] == .blob(Data([0])), "a blob holding a zero byte is read whole")
    }

    @Test("a statement prepared once sees every later commit, deletions and a truncating checkpoint included")
    func preparedStatementsSeeCommits() async throws {
        let (directory, sql) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        let query = "SELECT number FROM item WHERE id = ?"
        #expect(try sql.readImmediately(query, ["a"]) == [])
        for round in 1...3 {
            _ = try await sql.execute(
                "INSERT INTO item (id, number) VALUES ('a', ?) ON CONFLICT (id) DO UPDATE SET number = ?",
                [round, round])
            #expect(try sql.readImmediately(query, ["a"]) == [SQLRow([.integer(Int64(round))])])
        }
        try await sql.purgeErasedBytes()  // wal_checkpoint(TRUNCATE): no direct read holds the log back
        _ = try await sql.execute("DELETE FROM item WHERE id = ?", ["a"])
        #expect(try sql.readImmediately(query, ["a"]) == [])
        let wal = directory.appendingPathComponent("direct.sqlite-wal").path
        try await sql.purgeErasedBytes()
        let size = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int
        #expect(size == 0, "the checkpoint cut the log: no direct reader still held a snapshot")
    }

    @Test("a direct connection changes nothing, and a bad statement throws SQLite's message and leaves it usable")
    func readOnlyAndErrors() async throws {
        let (directory, sql) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        let readers = try #require(sql.direct)
        #expect(throws: SQLiteStatementError.self) { try readers.read("INSERT INTO item (id) VALUES ('x')", []) }
        #expect(try await sql.read("SELECT id FROM item", []).isEmpty, "nothing was written")
        let error = try #require(throws: SQLiteStatementError.self) { try readers.read("SELECT id FROM nowhere", []) }
        #expect(error.description.contains("no such table: nowhere"))
        #expect(try readers.read("SELECT count(*) FROM item", []) == [SQLRow([.integer(0)])])
    }

    @Test("the wrong number of arguments is refused on every path, as GRDB refused it, and writes nothing")
    func argumentCount() async throws {
        let (directory, sql) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        let insert = "INSERT INTO item (id, number) VALUES (?, ?)"
        await #expect(throws: SQLiteStatementError.self) { try await sql.execute(insert, ["short"]) }
        await #expect(throws: SQLiteStatementError.self) { try await sql.execute(insert, ["long", 1, 2]) }
        await #expect(throws: SQLiteStatementError.self) {
            try await sql.transaction { try await $0.execute(insert, ["short"]) }
        }
        #expect(throws: SQLiteStatementError.self) { try sql.readImmediately("SELECT id FROM item WHERE id = ?", []) }
        await #expect(throws: SQLiteStatementError.self) { try await sql.read("SELECT id FROM item WHERE id = ?", []) }
        #expect(try await sql.read("SELECT id FROM item", []).isEmpty, "nothing was written")
    }

    @Test("a connection that cannot be opened answers nil (GRDB's readers answer instead), never an error")
    func unopenableFallsBack() throws {
        let readers = SQLiteDirectReaders(path: "/nonexistent-\(UUID().uuidString)/db.sqlite", capacity: 1)
        #expect(try readers.read("SELECT 1", []) == nil)
        #expect(try readers.read("SELECT 1", []) == nil, "and again on the next read, the slot given back")
    }

    @Test("reads from many threads at once each get a connection or nil, never another thread's statement")
    func concurrentReads() async throws {
        let (directory, sql) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<50 {
            _ = try await sql.execute("INSERT INTO item (id, number) VALUES (?, ?)", ["i\(index)", index])
        }
        let readers = try #require(sql.direct)
        let outcomes = await withTaskGroup(of: (answered: Int, declined: Int, wrong: Int).self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var tally = (answered: 0, declined: 0, wrong: 0)
                    for step in 0..<500 {
                        let index = (worker * 500 + step) % 50
                        guard let rows = try? readers.read("SELECT number FROM item WHERE id = ?", ["i\(index)"])
                        else {
                            tally.declined += 1
                            continue
                        }
                        if rows == [SQLRow([.integer(Int64(index))])] { tally.answered += 1 } else { tally.wrong += 1 }
                    }
                    return tally
                }
            }
            var total = (answered: 0, declined: 0, wrong: 0)
            for await tally in group {
                total.answered += tally.answered
                total.declined += tally.declined
                total.wrong += tally.wrong
            }
            return total
        }
        #expect(outcomes.wrong == 0)
        #expect(outcomes.answered + outcomes.declined == 4000)
        #expect(outcomes.answered > 0)
    }
}
