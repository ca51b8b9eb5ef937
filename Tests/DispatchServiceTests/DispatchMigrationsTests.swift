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

    /// The steps, by id, that apply on `dialect` (the others are empty there).
    static func shipped(on dialect: SQLDialect) -> [SQLMigration] {
        DispatchMigrations.all.filter { !$0.statements(dialect).isEmpty }
    }

    /// The steps earlier releases applied on `dialect`: all but this release's `v7 idempotency owners` and
    /// `v8 device revocation outbox` and `v9 direct tokens per owner`.
    static func released(on dialect: SQLDialect) -> [SQLMigration] {
        shipped(on: dialect).filter {
            ![
                "v7 idempotency owners", "v8 device revocation outbox", "v9 direct tokens per owner",
                "v10 device verification", "v11 apps", "v12 send controls",
            ].contains($0.version)
        }
    }

    @Test("each backend keeps the version ids its earlier releases recorded, in their order")
    func versionIDs() {
        // Released ids first, then the steps added since for both backends (`v5 device public key`: sealed devices;
        // `v6 delivery trace context`; `v7 idempotency owners`: replica leases; `v8 device revocation outbox`).
        #expect(
            Self.shipped(on: .sqlite).map(\.version) == [
                "v1", "v2 delivery leases", "v3 device apns mode", "v4 unfinished deliveries by device",
                "v5 device public key", "v6 delivery trace context", "v7 idempotency owners",
                "v8 device revocation outbox", "v9 direct tokens per owner", "v10 device verification", "v11 apps",
                "v12 send controls", "v13 webhooks", "v14 audit trail",
            ])
        #expect(
            Self.shipped(on: .postgresql).map(\.version) == [
                "v1", "v2 unfinished deliveries by device", "v5 device public key", "v6 delivery trace context",
                "v7 idempotency owners", "v8 device revocation outbox", "v9 direct tokens per owner",
                "v10 device verification", "v11 apps", "v12 send controls", "v13 webhooks", "v14 audit trail",
            ])
    }

    @Test(
        "a database the previous migrations created opens with the one list, keeps its devices and takes sends",
        arguments: TestPostgres.backends)
    func previousDatabaseOpens(backend: TestDatabaseBackend) async throws {
        switch backend {
        case .sqlite:
            let directory = TemporaryDirectory.processRootURL.appendingPathComponent(
                "dispatch-migrations-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("dispatch.sqlite").path
            let previous = try ServiceDatabase.sqlite(path: path, migrations: Self.released(on: .sqlite))
            let registered = try await Self.registerDevice(previous.sql)
            try previous.sqlite?.close()
            let current = try ServiceDatabase.sqlite(path: path, migrations: DispatchMigrations.all)
            try await Self.expectUsable(current.sql, holding: registered)
        case .postgres:
            let url = try TestPostgres.isolatedURL()
            let registered = try await TestPostgres.withDatabase(
                serviceName: "push-dispatch", migrations: Self.released(on: .postgresql).postgres, url: url,
                dropSchema: false
            ) { try await Self.registerDevice(PostgresSQLDatabase($0)) }
            try await TestPostgres.withDatabase(
                serviceName: "push-dispatch", migrations: DispatchMigrations.all.postgres, url: url
            ) { try await Self.expectUsable(PostgresSQLDatabase($0), holding: registered) }
        }
    }

    /// Registers a device and queues a job for it, as the previous schema stored them.
    static func registerDevice(_ database: any SQLDatabase) async throws -> DeviceRecord {
        let startMS = start.millisecondsSince1970
        // Written as SQL, as the previous release wrote it (today's repository may touch tables added since).
        let device = DeviceRecord(
            id: "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", ownerID: "ada", platform: .apns, token: "aa11", name: "phone",
            createdAt: start, lastRegisteredAt: start, isActive: true, apnsMode: "background")
        _ = try await database.execute(
            """
            INSERT INTO device (id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode)
            VALUES (?, 'ada', 'apns', 'aa11', 'phone', ?, ?, TRUE, 'background')
            """, [device.id, startMS, startMS])
        let expiresMS = start.addingTimeInterval(3600).millisecondsSince1970
        _ = try await database.execute(
            """
            INSERT INTO push_send (notification_id, client_id, recipient_id, expires_at, created_at, result)
            VALUES ('n0', 'backend', 'ada', ?, ?, '{}')
            """, [expiresMS, startMS])
        _ = try await database.execute(
            """
            INSERT INTO delivery (
                notification_id, device_id, platform, status, attempts, next_attempt_at, expires_at, updated_at,
                send_created_at)
            VALUES ('n0', ?, 'apns', 'queued', 0, ?, ?, ?, ?)
            """, [device.id, startMS, expiresMS, startMS, startMS])
        // A send in progress when the old release stopped: its reservation has no owner.
        _ = try await database.execute(
            """
            INSERT INTO idempotency_key (client_id, key, state, reservation_id, reserved_at)
            VALUES ('backend', 'in-flight', 'pending', 'r0', ?)
            """, [startMS])
        return device
    }

    static func expectUsable(_ database: any SQLDatabase, holding device: DeviceRecord) async throws {
        #expect(try await SQLDeviceRepository(database: database).devices(ownerID: "ada") == [device])
        // The job queued before the upgrade keeps its send's time (for the latency), and has no trace context.
        let waiting = try await SQLDeliveryRepository(database: database).claimDue(
            platform: .apns, owner: "w", now: start.addingTimeInterval(1), leaseUntil: start.addingTimeInterval(60),
            limit: 10)
        #expect(waiting.map(\.notificationID) == ["n0"])
        #expect(waiting.map(\.sentAt) == [start])
        #expect(waiting.map(\.traceParent) == [nil])
        // Everything from before apps belongs to the environment's app `default`, and its sends reach it.
        #expect(waiting.map(\.appID) == [AppCatalog.environmentAppID])
        #expect(try await SQLDeviceRepository(database: database).devices(ownerID: "ada").map(\.appID) == ["default"])
        let recorded = try await SQLDeliveryRepository(database: database).recordSend(
            SendRecord(
                notificationID: "n1", clientID: "backend", recipientID: "ada",
                expiresAt: start.addingTimeInterval(3600), createdAt: start),
            claim: nil)
        #expect(recorded.jobs.map(\.deviceID) == [device.id])
        #expect(recorded.jobs.map(\.deviceToken) == ["aa11"])
        #expect(recorded.jobs.map(\.appID) == ["default"])
        // The ownerless reservation is judged by its age alone: in progress until the timeout, then taken over.
        let deliveries = SQLDeliveryRepository(database: database)
        let soon = start.addingTimeInterval(5)
        #expect(
            try await deliveries.reserve(
                clientID: "backend", key: "in-flight", fingerprint: "f", now: soon,
                staleBefore: soon.addingTimeInterval(-120))
                == .inProgress)
        let later = start.addingTimeInterval(121)
        guard
            case .reserved = try await deliveries.reserve(
                clientID: "backend", key: "in-flight", fingerprint: "f", now: later,
                staleBefore: later.addingTimeInterval(-120))
        else {
            Issue.record("the ownerless reservation was not taken over after the timeout")
            return
        }
    }
}
