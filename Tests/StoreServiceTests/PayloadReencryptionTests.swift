import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("re-encryption under the newest store key (securepush store-keys rotate)")
struct PayloadReencryptionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func record(_ id: String, payload: String) -> NotificationRecord {
        NotificationRecord(
            metadata: .init(
                id: id, recipientID: "ada", createdAt: Self.start, expiresAt: Self.start.addingTimeInterval(3600)),
            payload: payload)
    }

    @Test(
        "plaintext and old-key rows move to the new key in batches; then the old key can go and every row still reads",
        arguments: TestPostgres.backends)
    func rotates(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            let old = EncryptionKeyRing.generate()
            let new = EncryptionKey.generate(now: Self.start)
            let rotated = try #require(EncryptionKeyRing(old.keys + [new]))
            let legacy = SQLNotificationRepository(database: database, sealer: IdentityPayloadSealer())
            let before = SQLNotificationRepository(database: database, sealer: AESGCMPayloadSealer(ring: old))
            for index in 0..<7 { try await legacy.insert(record("p\(index)", payload: "plain \(index)")) }
            for index in 0..<8 { try await before.insert(record("o\(index)", payload: "old key \(index)")) }
            // A copy sealed to a device: a scheme the store cannot open, never rewritten.
            _ = try await database.execute(
                """
                INSERT INTO notification (id, recipient_id, payload, payload_scheme, created_at, expires_at)
                VALUES ('sealed', 'ada', ?, 'device-sealed', 0, ?)
                """, [Data([1, 2, 3]), Self.start.addingTimeInterval(3600).millisecondsSince1970])

            var batches = 0
            let report = try await PayloadReencryption(
                database: database, sealer: AESGCMPayloadSealer(ring: rotated), batchSize: 4
            ).run { _ in batches += 1 }
            #expect(report.reencrypted == 15)
            #expect(report.skipped == 1)
            #expect(report.failures.isEmpty)
            #expect(batches == 4)

            let schemes = try await database.read("SELECT id, payload_scheme FROM notification ORDER BY id", [])
                .map { (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self)) }
            for (id, scheme) in schemes {
                #expect(scheme == (id == "sealed" ? "device-sealed" : "aes256gcm:\(new.id)"), "\(id)")
            }
            let sealedCopy = try await database.readOne("SELECT payload FROM notification WHERE id = 'sealed'", [])
            #expect(try sealedCopy?.decode(0, as: Data.self) == Data([1, 2, 3]))

            let onlyNew = SQLNotificationRepository(
                database: database, sealer: AESGCMPayloadSealer(ring: try #require(EncryptionKeyRing([new]))))
            for index in 0..<7 {
                #expect(
                    try await onlyNew.find(id: "p\(index)", recipientID: "ada", now: Self.start)?.payload
                        == "plain \(index)")
            }
            for index in 0..<8 {
                #expect(
                    try await onlyNew.find(id: "o\(index)", recipientID: "ada", now: Self.start)?.payload
                        == "old key \(index)")
            }

            let again = try await PayloadReencryption(database: database, sealer: AESGCMPayloadSealer(ring: rotated))
                .run()
            #expect(again.reencrypted == 0, "a second run has nothing left to do")
        }
    }

    @Test("rows under a key no longer in the file are reported and left as they are", arguments: TestPostgres.backends)
    func missingKey(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            let lost = AESGCMPayloadSealer(ring: .generate())
            try await SQLNotificationRepository(database: database, sealer: lost).insert(record("l1", payload: "x"))
            let before = try await database.readOne("SELECT payload FROM notification", [])?.decode(0, as: Data.self)
            let report = try await PayloadReencryption(
                database: database, sealer: AESGCMPayloadSealer(ring: .generate())
            )
            .run()
            #expect(report.reencrypted == 0)
            #expect(report.failures.count == 1)
            #expect(report.failures.first?.contains("'\(lost.ring.current.id)'") == true)
            let after = try await database.readOne("SELECT payload FROM notification", [])?.decode(0, as: Data.self)
            #expect(after == before)
        }
    }

    func withDatabase(_ backend: TestDatabaseBackend, _ body: (any SQLDatabase) async throws -> Void) async throws {
        switch backend {
        case .sqlite:
            try await body(try ServiceDatabase.sqlite(path: nil, migrations: StoreMigrations.all).sql)
        case .postgres:
            try await TestPostgres.withDatabase(
                serviceName: "notification-store", migrations: StoreMigrations.all.postgres
            ) {
                try await body(PostgresSQLDatabase($0))
            }
        }
    }
}
