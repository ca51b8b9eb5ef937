import Foundation
import ServiceCore
import TestSupport
import Testing

/// The persistence interface itself, run against every backend: what repositories written once rely on.
@Suite("SQL database interface on SQLite and PostgreSQL")
struct SQLDatabaseTests {
    static let schema = "CREATE TABLE probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL, data BYTEA, note TEXT)"

    /// Runs `body` with a fresh database holding one `probe` table on `backend`.
    func withDatabase(_ backend: TestDatabaseBackend, _ body: (any SQLDatabase) async throws -> Void) async throws {
        switch backend {
        case .sqlite:
            let directory = TemporaryDirectory.processRootURL.appendingPathComponent("sql-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            // A file, so that reads go to the pool's reader connections as in production.
            let database = try ServiceDatabase.sqlite(
                path: directory.appendingPathComponent("probe.sqlite").path,
                migrations: [
                    SQLMigration("v1") { dialect in
                        [Self.schema.replacingOccurrences(of: "BYTEA", with: dialect.binaryType)]
                    }
                ])
            try await body(database.sql)
        case .postgres:
            try await TestPostgres.withDatabase(
                serviceName: "sql-probe", migrations: [PostgresMigration("v1", [Self.schema])]
            ) { try await body(PostgresSQLDatabase($0)) }
        }
    }

    @Test("values of every kind bind and decode by position, NULL and bytes included", arguments: TestPostgres.backends)
    func roundTrip(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            let bytes = Data([0, 1, 2, 255])
            let note: String? = nil
            #expect(
                try await database.execute("INSERT INTO probe VALUES (?, ?, ?, ?)", ["a", Int64.max, bytes, note]) == 1)
            let row = try #require(
                try await database.readOne("SELECT id, amount, data, note FROM probe WHERE id = ?", ["a"]))
            #expect(try row.decode(0, as: String.self) == "a")
            #expect(try row.decode(1, as: Int64.self) == .max)
            #expect(try row.decode(2, as: Data.self) == bytes)
            #expect(try row.decode(3, as: String?.self) == nil)
            #expect(throws: SQLDecodingError.self) { try row.decode(0, as: Int64.self) }
            #expect(throws: SQLDecodingError.self) { try row.decode(9, as: String.self) }
        }
    }

    @Test("a question mark inside a string literal is text, not a parameter", arguments: TestPostgres.backends)
    func quotedPlaceholder(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            _ = try await database.execute("INSERT INTO probe (id, amount, note) VALUES (?, ?, 'why?')", ["q", 1])
            let rows = try await database.read("SELECT note FROM probe WHERE note = 'why?' AND id = ?", ["q"])
            #expect(try rows.map { try $0.decode(0, as: String.self) } == ["why?"])
        }
    }

    @Test("execute counts changed rows; write returns what RETURNING gives", arguments: TestPostgres.backends)
    func changes(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            for id in ["a", "b", "c"] {
                _ = try await database.execute("INSERT INTO probe (id, amount) VALUES (?, ?)", [id, 10])
            }
            #expect(try await database.execute("UPDATE probe SET amount = amount + 1 WHERE id <> ?", ["c"]) == 2)
            #expect(try await database.execute("DELETE FROM probe WHERE id = ?", ["missing"]) == 0)
            let returned = try await database.write(
                "UPDATE probe SET amount = amount * 2 WHERE id = ? RETURNING amount", ["a"])
            #expect(try returned.map { try $0.decode(0, as: Int.self) } == [22])
        }
    }

    @Test(
        "a single statement that fails changes nothing and leaves the writer usable", arguments: TestPostgres.backends)
    func failedStatement(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            _ = try await database.execute("INSERT INTO probe (id, amount) VALUES (?, ?)", ["a", 1])
            // The second row breaks the primary key: the whole statement (its first row too) is rolled back.
            await #expect(throws: (any Error).self) {
                try await database.write(
                    "INSERT INTO probe (id, amount) VALUES (?, ?), (?, ?) RETURNING id", ["b", 2, "a", 3])
            }
            await #expect(throws: (any Error).self) {
                try await database.execute("INSERT INTO probe (id, amount) VALUES (?, NULL)", ["c"])
            }
            #expect(try await database.execute("UPDATE probe SET amount = amount + 1 WHERE id = ?", ["a"]) == 1)
            let rows = try await database.read("SELECT id, amount FROM probe ORDER BY id", [])
            #expect(try rows.map { try $0.decode(0, as: String.self) } == ["a"])
            #expect(try rows.first?.decode(1, as: Int.self) == 2)
        }
    }

    @Test(
        "a short read returns what read returns, on the calling thread where the backend allows",
        arguments: TestPostgres.backends)
    func readImmediatelyIfPossible(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            _ = try await database.execute("INSERT INTO probe (id, amount) VALUES (?, ?), (?, ?)", ["a", 1, "b", 2])
            let sql = "SELECT id, amount FROM probe WHERE amount >= ? ORDER BY id"
            let immediate = try await database.readImmediatelyIfPossible(sql, [1])
            #expect(immediate == (try await database.read(sql, [1])))
            #expect(try immediate.map { try $0.decode(0, as: String.self) } == ["a", "b"])
            #expect((database is any SQLImmediateReading) == (backend == .sqlite))
        }
    }

    @Test("a transaction commits all of its statements, or none when its body throws", arguments: TestPostgres.backends)
    func transactionAtomicity(backend: TestDatabaseBackend) async throws {
        struct Abort: Error {}
        try await withDatabase(backend) { database in
            try await database.transaction { db in
                _ = try await db.execute("INSERT INTO probe (id, amount) VALUES (?, ?)", ["kept", 1])
                #expect(try await db.query("SELECT id FROM probe", []).count == 1)
            }
            await #expect(throws: Abort.self) {
                try await database.transaction { db in
                    _ = try await db.execute("INSERT INTO probe (id, amount) VALUES (?, ?)", ["lost", 1])
                    _ = try await db.execute("UPDATE probe SET amount = 99 WHERE id = ?", ["kept"])
                    throw Abort()
                }
            }
            let rows = try await database.read("SELECT id, amount FROM probe ORDER BY id", [])
            #expect(try rows.map { try $0.decode(0, as: String.self) } == ["kept"])
            #expect(try rows.first?.decode(1, as: Int.self) == 1)
        }
    }

    @Test(
        "concurrent read-modify-write transactions never lose an update (SQLite serialises them; PostgreSQL locks the row)",
        arguments: TestPostgres.backends)
    func concurrentTransactions(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            _ = try await database.execute("INSERT INTO probe (id, amount) VALUES (?, ?)", ["counter", 0])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await database.transaction { db in
                            let lock = db.dialect == .postgresql ? " FOR UPDATE" : ""
                            let rows = try await db.query("SELECT amount FROM probe WHERE id = ?" + lock, ["counter"])
                            let amount = try rows[0].decode(0, as: Int64.self)
                            await Task.yield()
                            _ = try await db.execute(
                                "UPDATE probe SET amount = ? WHERE id = ?", [amount + 1, "counter"])
                        }
                    }
                    // Single statements beside them must wait for an open transaction, not land inside it.
                    group.addTask {
                        _ = try await database.execute(
                            "INSERT INTO probe (id, amount) VALUES (?, ?)", ["w\(index)", 0])
                    }
                }
                try await group.waitForAll()
            }
            let row = try #require(try await database.readOne("SELECT amount FROM probe WHERE id = ?", ["counter"]))
            #expect(try row.decode(0, as: Int64.self) == 20)
            #expect(try await database.read("SELECT id FROM probe", []).count == 21)
        }
    }

    @Test("PostgreSQL placeholders are numbered in order; SQLite's stay as written")
    func placeholders() {
        let sql = "SELECT ? FROM t WHERE a = ? AND b = 'x?' AND \"c?\" = ?"
        #expect(
            SQLDialect.postgresql.placeholders(in: sql) == "SELECT $1 FROM t WHERE a = $2 AND b = 'x?' AND \"c?\" = $3")
        #expect(SQLDialect.sqlite.placeholders(in: sql) == sql)
    }
}
