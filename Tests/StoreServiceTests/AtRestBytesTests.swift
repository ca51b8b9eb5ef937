import ChildProcesses
import Foundation
import Logging
import ServiceCore
import StoreService
import TestSupport
import Testing

/// The issue's byte test: after storing a known payload, nothing the database keeps on disk (or dumps) holds any part
/// of it, in the raw bytes or in the hex form `pg_dump` prints `bytea` in.
@Suite("payloads are encrypted at rest")
struct AtRestBytesTests {
    /// A payload no database file holds by chance: its random part is drawn from letters that are neither hex digits
    /// nor in a UUID, so no 8-byte window of it matches the ids, hashes and `bytea` hex other rows put in a dump (a
    /// UUID's fixed `-4` and variant digit made one window in ~260,000 of another UUID's match).
    static func canary() -> String {
        let letters = Array("ghijklmnopqrstuvwxyz")
        let random = String((0..<40).map { _ in letters.randomElement()! })
        return "at-rest canary \(random) the meeting moved to 9:30"
    }

    /// The windows of `payload` (raw and as lowercase hex) found in `haystack`.
    static func leaks(of payload: String, in haystack: Data, window: Int = 8) -> [String] {
        let bytes = Array(payload.utf8)
        let hex = Array(bytes.map { String(format: "%02x", $0) }.joined().utf8)
        var found: [String] = []
        for source in [bytes, hex] {
            for start in 0...(source.count - window) {
                let needle = Data(source[start..<(start + window)])
                if haystack.range(of: needle) != nil { found.append(String(decoding: needle, as: UTF8.self)) }
            }
        }
        return found
    }

    @Test("on SQLite, neither store.sqlite nor its -wal or -shm hold any 8-byte sequence of a stored payload")
    func sqliteFiles() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("at-rest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try StoreConfiguration(
            environment: ServiceEnvironment(["SECUREPUSH_DATA_DIR": directory.path]))
        let harness = try await StoreHarness(configuration: configuration)
        let payload = Self.canary()
        let put = try await harness.put(to: "alice", payload: payload)
        #expect(try await harness.get(put.notificationId, as: "alice").payload == payload)

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("store.sqlite") }
        #expect(files.contains("store.sqlite-wal"), "the row is still in the write-ahead log: \(files)")
        for file in files {
            let contents = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(Self.leaks(of: payload, in: contents).isEmpty, "\(file)")
        }
    }

    @Test(
        "on PostgreSQL, a full pg_dump holds no 8-byte sequence of a stored payload",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func postgresDump() async throws {
        let payload = Self.canary()
        let url = try TestPostgres.isolatedURL(schemaPrefix: "atrest")
        try await TestPostgres.withDatabase(
            serviceName: "notification-store", migrations: StoreMigrations.all.postgres, url: url
        ) { database in
            let store = NotificationStore(
                repository: SQLNotificationRepository(
                    database: PostgresSQLDatabase(database),
                    sealer: try StoreKeySource.keys(.generate()).makeSealer(
                        logger: .quiet)),
                logger: .quiet)
            let stored = try await store.put(recipientID: "alice", payload: payload, ttlSeconds: nil)
            #expect(try await store.get(id: stored.id, recipientID: "alice").payload == payload)

            let dump = try await Self.pgDump()
            #expect(dump.range(of: Data(stored.id.utf8)) != nil, "the dump holds the row")
            #expect(Self.leaks(of: payload, in: dump).isEmpty)
        }
    }

    /// The whole test database as `pg_dump` writes it, with the binaries `.ci/postgres.sh` uses. Other tests create and
    /// drop schemas in the same database meanwhile, which can fail a dump ("cache lookup failed"): it is retried.
    static func pgDump() async throws -> Data {
        let versions = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql").sorted()
        let binary = try #require(
            versions.reversed().map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
                .first { FileManager.default.isExecutableFile(atPath: $0) })
        let output = TemporaryDirectory.processRootURL.appendingPathComponent("dump-\(UUID().uuidString).sql")
        let errors = TemporaryDirectory.processRootURL.appendingPathComponent("dump-\(UUID().uuidString).err")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        var failures: [String] = []
        for _ in 0..<10 {
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--dbname", try #require(TestPostgres.url), "--file", output.path]
            process.standardError = try FileHandle(forWritingTo: errors)
            try await process.runToExit()
            if process.terminationStatus == 0 { return try Data(contentsOf: output) }
            failures.append(try String(contentsOf: errors, encoding: .utf8))
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("pg_dump failed 10 times: \(failures.joined(separator: "\n"))")
        return Data()
    }
}
