import Foundation
import Testing

@testable import ServiceCore

/// The writer's savepoint and statement journals stay in memory (`PRAGMA temp_store = MEMORY`): every group-commit
/// member after the first runs in a `SAVEPOINT`, and SQLite moves a sub-journal past 64 KiB to a temporary file,
/// which cost push-dispatch more page writes than its WAL and left changed pages in the temporary directory.
@Suite("SQLite's writer keeps its transactions' journals in memory", .timeLimit(.minutes(1)))
struct SQLiteTempStoreTests {
    /// This process's open descriptors of SQLite temporary files (`etilqs_…`, unlinked as soon as they are opened).
    static func temporaryFiles() -> Set<String> {
        let manager = FileManager.default
        let descriptors = (try? manager.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(
            descriptors.compactMap { descriptor in
                guard let target = try? manager.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                    target.contains("etilqs_")
                else { return nil }
                return "\(descriptor) → \(target)"
            })
    }

    @Test("the writer connection holds temporary data in memory")
    func writerPragma() async throws {
        let (directory, _, sql) = try SQLiteReaderGateTests.probeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await sql.transaction { db in try await db.query("PRAGMA temp_store", []) }
        #expect(try store.first?.decode(0, as: Int64.self) == 2, "2 is MEMORY")
    }

    @Test("a savepoint that changes a megabyte of pages opens no temporary file")
    func savepointJournalStaysInMemory() async throws {
        let (directory, _, sql) = try SQLiteReaderGateTests.probeDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        // ~300 pages of rows, committed: a savepoint journals the originals of the existing pages it changes.
        try await sql.transaction { db in
            _ = try await db.execute("CREATE TABLE bulk (n INTEGER PRIMARY KEY, body BLOB NOT NULL)", [])
            for n in 0..<300 { _ = try await db.execute("INSERT INTO bulk (n, body) VALUES (?, zeroblob(3000))", [n]) }
        }
        let before = Self.temporaryFiles()
        let (during, changed) = try await sql.transaction { db in
            _ = try await db.execute("SAVEPOINT member", [])
            let changed = try await db.execute("UPDATE bulk SET body = zeroblob(3001)", [])
            let during = Self.temporaryFiles()
            _ = try await db.execute("RELEASE member", [])
            return (during, changed)
        }
        #expect(changed == 300)
        #expect(during.subtracting(before).isEmpty, "temporary files opened: \(during.subtracting(before))")
        #expect(
            try await sql.read("SELECT count(*) FROM bulk WHERE length(body) = 3001", [])
                .first?.decode(0, as: Int64.self) == 300)
    }
}
