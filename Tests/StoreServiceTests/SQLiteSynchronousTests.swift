import Foundation
import GRDB
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("SECUREPUSH_SQLITE_SYNCHRONOUS")
struct SQLiteSynchronousTests {
    @Test("defaults to normal, reads full, and refuses anything else by name")
    func configuration() throws {
        #expect(try StoreConfiguration(environment: ServiceEnvironment([:])).sqliteSynchronous == .normal)
        let full = ServiceEnvironment(["SECUREPUSH_SQLITE_SYNCHRONOUS": "FULL"])
        #expect(try StoreConfiguration(environment: full).sqliteSynchronous == .full)
        let wrong = ServiceEnvironment(["SECUREPUSH_SQLITE_SYNCHRONOUS": "off"])
        let error = try #require(throws: ConfigurationError.self) { try StoreConfiguration(environment: wrong) }
        #expect(error.description.contains("SECUREPUSH_SQLITE_SYNCHRONOUS"))
    }

    @Test("the writer connection uses the chosen setting", arguments: [SQLiteSynchronous.full, .normal])
    func pragmaApplied(_ synchronous: SQLiteSynchronous) async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SQLiteDatabase.open(
            path: directory.appendingPathComponent("store.sqlite").path, migrator: DatabaseMigrator(),
            synchronous: synchronous)
        // PRAGMA synchronous reads 2 for FULL, 1 for NORMAL; only the writer connection commits.
        let expected = synchronous == .full ? 2 : 1
        #expect(try await database.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == expected)
    }
}
