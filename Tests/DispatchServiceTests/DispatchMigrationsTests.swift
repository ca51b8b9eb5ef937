import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// push-dispatch's one migration list against databases the two earlier lists (one per backend) created.
@Suite("push-dispatch migrations")
struct DispatchMigrationsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// The steps, by id, that earlier releases applied on `dialect` (the others are empty there).
    static func shipped(on dialect: SQLDialect) -> [SQLMigration] {
        DispatchMigrations.all.filter { !$0.statements(dialect).isEmpty }
    }

    @Test("each backend keeps the version ids its earlier releases recorded, in their order")
    func versionIDs() {
        // Released ids first, then the steps added since for both backends (`v5 device public key`: sealed devices).
        #expect(
            Self.shipped(on: .sqlite).map(\.version) == [
                "v1", "v2 delivery leases", "v3 device apns mode", "v4 unfinished deliveries by device",
                "v5 device public key",
            ])
        #expect(
            Self.shipped(on: .postgresql).map(\.version) == [
                "v1", "v2 unfinished deliveries by device", "v5 device public key",
            ])
    }

    @Test(
        "a database the previous migrations created opens with the one list, keeps its devices and takes sends",
        arguments: TestPostgres.backends)
    func previousDatabaseOpens(backend: TestDatabaseBackend) async throws {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "dispatch-migrations-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("dispatch.sqlite").path
            let previous = try ServiceDatabase.sqlite(path: path, migrations: Self.shipped(on: .sqlite))
            let registered = try await Self.registerDevice(previous.sql)
            try previous.sqlite?.close()
            let current = try ServiceDatabase.sqlite(path: path, migrations: DispatchMigrations.all)
            try await Self.expectUsable(current.sql, holding: registered)
        case .postgres:
            let url = try TestPostgres.isolatedURL()
            let registered = try await TestPostgres.withDatabase(
                serviceName: "push-dispatch", migrations: Self.shipped(on: .postgresql).postgres, url: url,
                dropSchema: false
            ) { try await Self.registerDevice(PostgresSQLDatabase($0)) }
            try await TestPostgres.withDatabase(
                serviceName: "push-dispatch", migrations: DispatchMigrations.all.postgres, url: url
            ) { try await Self.expectUsable(PostgresSQLDatabase($0), holding: registered) }
        }
    }

    static func registerDevice(_ database: any SQLDatabase) async throws -> DeviceRecord {
        try await SQLDeviceRepository(database: database).register(
            ownerID: "ada", platform: .apns, token: "aa11", name: "phone", apnsMode: "background", now: start)
    }

    static func expectUsable(_ database: any SQLDatabase, holding device: DeviceRecord) async throws {
        #expect(try await SQLDeviceRepository(database: database).devices(ownerID: "ada") == [device])
        let recorded = try await SQLDeliveryRepository(database: database).recordSend(
            SendRecord(
                notificationID: "n1", clientID: "backend", recipientID: "ada",
                expiresAt: start.addingTimeInterval(3600), createdAt: start),
            claim: nil)
        #expect(recorded.jobs.map(\.deviceID) == [device.id])
        #expect(recorded.jobs.map(\.deviceToken) == ["aa11"])
    }
}
