import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("ServiceDatabase: a service's database, opened from its configuration")
struct ServiceDatabaseTests {
    static func mode(_ path: String) throws -> Int? {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    @Test("without a URL: the SQLite file the configuration names, created 0600 in a 0700 directory and migrated")
    func sqlite() async throws {
        let directory = try TemporaryDirectory(prefix: "service-database")
        defer { directory.remove() }
        let path = directory.file("data/store.sqlite")
        let database = try ServiceDatabase.open(
            StoreConfiguration(databasePath: path), schema: StoreMigrations.schema, logger: .quiet)
        #expect(database.postgres == nil)
        #expect(database.sqlite != nil)
        #expect(database.services.isEmpty)
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(directory.file("data")) == 0o700)
        let rows = try await database.sql.read("SELECT count(*) FROM notification", [])
        #expect(try rows.first?.decode(0, as: Int64.self) == 0)
        #expect(await database.readiness() == "ok")
    }

    @Test("with a URL: a PostgreSQL pool in the service's schema, to run first among the service's lifecycle services")
    func postgres() throws {
        let directory = try TemporaryDirectory(prefix: "service-database")
        defer { directory.remove() }
        let path = directory.file("never-created.sqlite")
        let url = try PostgresURL("postgres://securepush@127.0.0.1:1/securepush")
        let database = try ServiceDatabase.open(
            StoreConfiguration(databasePath: path, postgresURL: url), schema: StoreMigrations.schema, logger: .quiet)
        let postgres = try #require(database.postgres)
        #expect(database.sqlite == nil)
        #expect(postgres.serviceName == "notification-store")
        #expect(postgres.schema == "store")
        #expect(database.services.count == 1)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(
        "whileRunning on PostgreSQL starts the pool, migrates, runs the work, and stops the pool",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func postgresWhileRunning() async throws {
        let database = try ServiceDatabase.open(
            StoreConfiguration(postgresURL: try TestPostgres.isolatedURL()), schema: StoreMigrations.schema,
            logger: .quiet)
        // The schema is private to this test (a throwaway cluster's), so it is left behind.
        let count = try await database.whileRunning { sql in
            try await sql.read("SELECT count(*) FROM notification", []).first?.decode(0, as: Int64.self)
        }
        #expect(count == 0)
    }
}
