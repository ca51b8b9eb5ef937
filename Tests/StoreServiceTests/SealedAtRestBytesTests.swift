import Foundation
import SealedPush
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

@Suite("sealed payloads never reach the database in a readable form")
struct SealedAtRestBytesTests {
    static let payload = "Transfer 9 876,54 EUR to IBAN DE89 3704 0044 0532 0130 00 — approve with code 52-31-77"

    /// Every 8-byte window of the payload that occurs in `bytes`, raw or hex-encoded (pg_dump writes BYTEA as hex).
    static func leaks(in bytes: Data) -> [String] {
        let needle = Array(payload.utf8)
        return (0...(needle.count - 8)).compactMap { start in
            let window = Data(needle[start..<(start + 8)])
            let hex = Data(window.map { String(format: "%02x", $0) }.joined().utf8)
            let found = bytes.range(of: window) != nil || bytes.range(of: hex) != nil
            return found ? String(decoding: window, as: UTF8.self) : nil
        }
    }

    @Test("SQLite: the database files hold no 8 bytes of a payload sent to sealed devices only")
    func sqliteFiles() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("sealed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        do {
            let harness = try await StoreHarness(configuration: StoreConfiguration(databasePath: path))
            let phone = TestDevice()
            let put = try await harness.put(to: "alice", payload: Self.payload, sealedTo: [phone, TestDevice()])
            #expect(
                try phone.open(try await harness.get(put.notificationId, as: "alice", device: phone.id)) == Self.payload
            )
        }
        var everything = Data()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            everything += try Data(contentsOf: directory.appendingPathComponent(file))
        }
        #expect(everything.count > 0)
        #expect(Self.leaks(in: everything) == [])
        // The check itself sees a payload that is stored readable.
        #expect(!Self.leaks(in: everything + Data(Self.payload.utf8)).isEmpty)
    }

    @Test(
        "PostgreSQL: a full pg_dump holds no 8 bytes of a payload sent to sealed devices only",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func postgresDump() async throws {
        // A database of its own: a full dump of the shared test database would race other tests' schema changes.
        let base = try #require(TestPostgres.url?.split(separator: "?").first.map(String.init))
        let name = "sealed_\(UUID().uuidString.prefix(8).lowercased())"
        let slash = try #require(base.lastIndex(of: "/"))
        let server = String(base[..<slash])
        _ = try await Self.run("psql", ["--dbname", base, "-c", "CREATE DATABASE \(name)"])
        try await withFinally {
            let url = try PostgresURL("\(server)/\(name)?sslmode=disable&schema=store")
            try await TestPostgres.withDatabase(
                serviceName: "notification-store", migrations: StoreMigrations.all.postgres, url: url, dropSchema: false
            ) { database in
                let store = NotificationStore(
                    repository: SQLNotificationRepository(
                        database: PostgresSQLDatabase(database), sealer: IdentityPayloadSealer()),
                    logger: .quiet)
                let phone = TestDevice()
                let stored = try await store.put(
                    recipientID: "alice", payload: Self.payload, ttlSeconds: nil, recipientKeys: [phone.recipientKey],
                    sealedOnly: true)
                let fetched = try await store.fetch(id: stored.id, recipientID: "alice", deviceID: phone.id)
                #expect(try phone.open(fetched) == Self.payload)
                let dump = try await Self.run("pg_dump", ["--dbname", "\(server)/\(name)"])
                #expect(String(decoding: dump, as: UTF8.self).contains(stored.id))
                #expect(Self.leaks(in: dump) == [])
                // The check itself sees a payload stored readable in BYTEA.
                _ = try await store.put(recipientID: "alice", payload: Self.payload, ttlSeconds: nil)
                #expect(!Self.leaks(in: try await Self.run("pg_dump", ["--dbname", "\(server)/\(name)"])).isEmpty)
            }
        } finally: {
            _ = try? await Self.run("psql", ["--dbname", base, "-c", "DROP DATABASE \(name) WITH (FORCE)"])
        }
    }

    /// Runs one of the PostgreSQL client programs `.ci/postgres.sh` uses; its standard output.
    static func run(_ program: String, _ arguments: [String]) async throws -> Data {
        let binaries = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql").sorted().reversed()
            .map { "/usr/lib/postgresql/\($0)/bin/\(program)" }
        let path = try #require(binaries.first { FileManager.default.isExecutableFile(atPath: $0) })
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let result = try await process.runCapturingOutput()
        try #require(result.status == 0, "\(program) failed: \(result.error)")
        return result.output
    }
}
