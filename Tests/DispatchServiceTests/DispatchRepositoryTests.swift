import DispatchService
import Foundation
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// The device and delivery repository contracts, run against every backend: SQLite always, PostgreSQL when
/// configured; plus what only a shared database must guarantee (concurrent claims by several replicas).
@Suite("Dispatch repositories on SQLite and PostgreSQL")
struct DispatchRepositoryTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func withRepositories(
        _ backend: TestDatabaseBackend,
        _ body: (any DeviceRepository, any DeliveryRepository) async throws -> Void
    ) async throws {
        try await withDatabase(backend) { database in
            try await body(SQLDeviceRepository(database: database), SQLDeliveryRepository(database: database))
        }
    }

    /// A freshly migrated push-dispatch database on `backend` (for tests that also write rows by hand).
    func withDatabase(_ backend: TestDatabaseBackend, _ body: (any SQLDatabase) async throws -> Void) async throws {
        switch backend {
        case .sqlite:
            try await body(try ServiceDatabase.sqlite(path: nil, migrations: DispatchMigrations.all).sql)
        case .postgres:
            try await TestPostgres.withDatabase(
                serviceName: "push-dispatch", migrations: DispatchMigrations.all.postgres
            ) { try await body(PostgresSQLDatabase($0)) }
        }
    }

    func send(_ id: String, to recipient: String, at date: Date = start, ttl: TimeInterval = 3600) -> SendRecord {
        SendRecord(
            notificationID: id, clientID: "backend", recipientID: recipient,
            expiresAt: date.addingTimeInterval(ttl), createdAt: date)
    }

    @Test(
        "a token registers once: again it updates the same device; another owner takes it over",
        arguments: TestPostgres.backends)
    func registration(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let first = try await devices.register(
                ownerID: "ada", platform: .apns, token: "aa11", name: "phone", now: Self.start)
            let again = try await devices.register(
                ownerID: "ada", platform: .apns, token: "aa11", name: nil, apnsMode: "background",
                now: Self.start.addingTimeInterval(1))
            #expect(again.id == first.id)
            #expect(again.name == "phone")
            #expect(again.apnsMode == "background")
            let direct1 = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: "a", now: Self.start)
            let direct2 = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: "b", now: Self.start)
            #expect(direct1.id != direct2.id)
            #expect(try await devices.devices(ownerID: "ada").map(\.id) == [first.id, direct1.id, direct2.id])

            // Queued for ada, then the token changes hands (after eve proved she holds it): ada's job must not
            // reach eve.
            _ = try await deliveries.recordSend(send("n1", to: "ada"), claim: nil)
            let pending = try await devices.register(
                ownerID: "eve", platform: .apns, token: "aa11", name: nil, apnsMode: nil, publicKey: nil,
                maxDevices: nil, now: Self.start.addingTimeInterval(2))
            #expect(pending.device.isPendingVerification)
            let challenge = try #require(pending.challenge)
            guard
                case .verified(let moved) = try await devices.verify(
                    id: pending.device.id, ownerID: "eve", challenge: challenge, maxDevices: nil,
                    now: Self.start.addingTimeInterval(3))
            else {
                Issue.record("the right challenge did not verify")
                return
            }
            let taken = moved.device
            #expect(taken.id == pending.device.id)
            #expect(moved.replacedDeviceID == first.id)
            #expect(moved.previousOwnerID == "ada")
            #expect(taken.ownerID == "eve")
            #expect(try await devices.device(id: first.id) == nil)
            let states = try #require(
                try await deliveries.deliveries(notificationID: "n1", clientID: "backend", now: Self.start))
            #expect(states.first { $0.deviceId == first.id }?.status == .failed)

            #expect(try await devices.unregister(id: direct1.id, ownerID: "eve", now: Self.start) == false)
            #expect(try await devices.unregister(id: direct1.id, ownerID: "ada", now: Self.start) == true)
            #expect(try await devices.device(id: direct1.id) == nil)
        }
    }

    @Test(
        "a stream's batch of jobs is recorded sent in one call; a job acknowledged meanwhile stays acknowledged",
        arguments: TestPostgres.backends)
    func batchRecordedSent(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let device = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            for id in ["n1", "n2", "n3"] { _ = try await deliveries.recordSend(send(id, to: "ada"), claim: nil) }
            let jobs = try await deliveries.pendingJobs(deviceID: device.id, after: 0, now: Self.start, limit: 100)
            #expect(jobs.map(\.notificationID) == ["n1", "n2", "n3"])
            #expect(
                try await deliveries.acknowledge(deviceID: device.id, notificationID: "n2", now: Self.start)
                    == .acknowledged(platform: .direct, sentAt: Self.start))

            try await deliveries.record(.sent, for: jobs, now: Self.start)

            let states = try #require(
                try await deliveries.deliveries(notificationID: "n2", clientID: "backend", now: Self.start))
            #expect(states.map(\.status) == [.acknowledged])
            for id in ["n1", "n3"] {
                let sent = try #require(
                    try await deliveries.deliveries(notificationID: id, clientID: "backend", now: Self.start))
                #expect(sent.map(\.status) == [.sent])
            }
            // Nothing is queued any more; the sent ones come back only below the stream's cursor.
            let last = jobs.map(\.sequence).max() ?? 0
            #expect(
                try await deliveries.pendingJobs(deviceID: device.id, after: last, now: Self.start, limit: 100).isEmpty)
            let again = try await deliveries.pendingJobs(deviceID: device.id, after: 0, now: Self.start, limit: 100)
            #expect(again.map(\.notificationID) == ["n1", "n3"])
            try await deliveries.record(.sent, for: [], now: Self.start)  // an empty batch is a no-op
        }
    }

    @Test(
        "an idempotency key reserves once, replays the recorded result, and a taken-over claim is refused",
        arguments: TestPostgres.backends)
    func idempotency(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            _ = try await devices.register(ownerID: "ada", platform: .direct, token: "t1", name: nil, now: Self.start)
            let stale = Self.start.addingTimeInterval(-60)
            guard
                case .reserved(let claim) = try await deliveries.reserve(
                    clientID: "backend", key: "k1", fingerprint: "f", now: Self.start, staleBefore: stale)
            else {
                Issue.record("first reservation not granted")
                return
            }
            #expect(
                try await deliveries.reserve(
                    clientID: "backend", key: "k1", fingerprint: "f", now: Self.start, staleBefore: stale)
                    == .inProgress)
            let recorded = try await deliveries.recordSend(send("n1", to: "ada"), claim: claim)
            #expect(recorded.jobs.count == 1)
            #expect(
                try await deliveries.reserve(
                    clientID: "backend", key: "k1", fingerprint: "f", now: Self.start, staleBefore: stale)
                    == .completed(recorded.result))

            // A holder that hung past the stale time loses the key to the next caller.
            guard
                case .reserved(let slow) = try await deliveries.reserve(
                    clientID: "backend", key: "k2", fingerprint: "f", now: Self.start, staleBefore: stale)
            else {
                Issue.record("k2 not granted")
                return
            }
            let later = Self.start.addingTimeInterval(120)
            guard
                case .reserved = try await deliveries.reserve(
                    clientID: "backend", key: "k2", fingerprint: "f", now: later,
                    staleBefore: later.addingTimeInterval(-60))
            else {
                Issue.record("stale k2 not taken over")
                return
            }
            await #expect(throws: DispatchError.self) {
                _ = try await deliveries.recordSend(send("n2", to: "ada"), claim: slow)
            }
        }
    }

    @Test(
        "a reservation whose replica's lease lapsed is taken over at once; a live or unknown owner's waits for the timeout",
        arguments: TestPostgres.backends)
    func reservationOwnerLease(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            let devices = SQLDeviceRepository(database: database)
            let dying = SQLDeliveryRepository(database: database, replicaID: "replica-a")
            let survivor = SQLDeliveryRepository(database: database, replicaID: "replica-b")
            let unknown = SQLDeliveryRepository(database: database, replicaID: "replica-never-leased")
            _ = try await devices.register(ownerID: "ada", platform: .direct, token: "t1", name: nil, now: Self.start)
            // Replica A holds a lease until start + 10 s.
            let lease = ReplicaLease(
                deliveries: dying, timeout: .seconds(10), forgetAfter: .seconds(3_600), now: { Self.start },
                logger: Logger(label: "test"))
            try await lease.renew()
            let timeout: TimeInterval = 120
            func reserve(_ replica: SQLDeliveryRepository, _ key: String, at seconds: TimeInterval) async throws
                -> IdempotencyReservation
            {
                let now = Self.start.addingTimeInterval(seconds)
                return try await replica.reserve(
                    clientID: "backend", key: key, fingerprint: "f", now: now,
                    staleBefore: now.addingTimeInterval(-timeout))
            }
            guard case .reserved(let killed) = try await reserve(dying, "order-7", at: 0) else {
                Issue.record("replica A's reservation not granted")
                return
            }
            // A's lease is live: its send may still finish.
            #expect(try await reserve(survivor, "order-7", at: 9) == .inProgress)
            // A stopped renewing (killed): at start + 10 s its lease lapsed, long before the 120 s timeout.
            guard case .reserved(let retried) = try await reserve(survivor, "order-7", at: 10) else {
                Issue.record("a lapsed owner's reservation was not taken over")
                return
            }
            #expect(retried.reservationID != killed.reservationID)
            // The new holder is B, whose reservation is not A's to finish.
            await #expect(throws: DispatchError.self) {
                _ = try await dying.recordSend(send("n-late", to: "ada"), claim: killed)
            }
            #expect(try await reserve(dying, "order-7", at: 11) == .inProgress)
            _ = try await survivor.recordSend(send("n-retried", to: "ada"), claim: retried)

            // An owner that never held a lease (a reservation from before owners were recorded) is not judged
            // gone: its reservation waits for the timeout.
            guard case .reserved = try await reserve(unknown, "order-8", at: 0) else {
                Issue.record("order-8 not granted")
                return
            }
            #expect(try await reserve(survivor, "order-8", at: 60) == .inProgress)
            guard case .reserved = try await reserve(survivor, "order-8", at: 121) else {
                Issue.record("order-8 not taken over after the timeout")
                return
            }
        }
    }

    @Test(
        "leases: a claimed job is nobody else's until its lease lapses; only the holder records it",
        arguments: TestPostgres.backends)
    func leases(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            _ = try await devices.register(ownerID: "ada", platform: .apns, token: "aa01", name: nil, now: Self.start)
            _ = try await deliveries.recordSend(send("n1", to: "ada"), claim: nil)
            let lease = Self.start.addingTimeInterval(30)
            let claimed = try await deliveries.claimDue(
                platform: .apns, owner: "w1", now: Self.start, leaseUntil: lease, limit: 10)
            #expect(claimed.map(\.notificationID) == ["n1"])
            #expect(claimed.first?.deviceToken == "aa01")
            #expect(
                try await deliveries.claimDue(
                    platform: .apns, owner: "w2", now: Self.start, leaseUntil: lease, limit: 10
                ).isEmpty)
            #expect(try await deliveries.renewLeases(owner: "w1", until: lease) == 1)
            #expect(try await deliveries.nextDueDate(platform: .apns, after: Self.start) == lease)

            // w1 dies; after the lease w2 takes the job, and w1's late outcome is ignored.
            let afterLease = lease.addingTimeInterval(1)
            let taken = try await deliveries.claimDue(
                platform: .apns, owner: "w2", now: afterLease, leaseUntil: afterLease.addingTimeInterval(30), limit: 10)
            let job = try #require(taken.first)
            #expect(try await deliveries.record(.sent, for: job, leaseOwner: "w1", now: afterLease) == nil)
            #expect(
                try await deliveries.record(
                    .retry(after: .seconds(5), reason: "503"), for: job, leaseOwner: "w2", now: afterLease) == .retrying
            )
            #expect(
                try await deliveries.nextDueDate(platform: .apns, after: afterLease)
                    == afterLease.addingTimeInterval(5))
            let retried = try await deliveries.claimDue(
                platform: .apns, owner: "w2", now: afterLease.addingTimeInterval(5),
                leaseUntil: afterLease.addingTimeInterval(60), limit: 10)
            #expect(retried.first?.attempts == 1)
            let deactivated = try await deliveries.record(
                .deactivate(reason: "Unregistered"), for: try #require(retried.first), leaseOwner: "w2",
                now: afterLease.addingTimeInterval(6))
            #expect(deactivated == .deactivated)
            #expect(try await devices.devices(ownerID: "ada").first?.isActive == false)
        }
    }

    @Test(
        "the direct channel: pending jobs in order, acknowledged ones gone, expired ones marked",
        arguments: TestPostgres.backends)
    func directJobs(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let device = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            for index in 0..<3 {
                _ = try await deliveries.recordSend(
                    send("n\(index)", to: "ada", ttl: index == 2 ? 10 : 3600), claim: nil)
            }
            let pending = try await deliveries.pendingJobs(deviceID: device.id, after: 0, now: Self.start, limit: 10)
            #expect(pending.map(\.notificationID) == ["n0", "n1", "n2"])
            try await deliveries.record(.sent, for: pending[0], now: Self.start)
            #expect(
                try await deliveries.acknowledge(deviceID: device.id, notificationID: "n0", now: Self.start)
                    == .acknowledged(platform: .direct, sentAt: Self.start))
            #expect(
                try await deliveries.acknowledge(deviceID: device.id, notificationID: "n0", now: Self.start)
                    == .alreadyEnded)
            #expect(
                try await deliveries.acknowledge(deviceID: device.id, notificationID: "nope", now: Self.start) == nil)
            let later = Self.start.addingTimeInterval(11)
            #expect(
                try await deliveries.pendingJobs(deviceID: device.id, after: 0, now: later, limit: 10)
                    .map(\.notificationID) == ["n1"])
            let states = try #require(
                try await deliveries.deliveries(notificationID: "n2", clientID: "backend", now: later))
            #expect(states.map(\.status) == [.expired])
            #expect(try await deliveries.deliveries(notificationID: "n2", clientID: "someone-else", now: later) == nil)
            let purged = try await deliveries.purge(before: later.addingTimeInterval(4000), keysBefore: nil)
            #expect(purged.sends == 3)
            #expect(purged.deliveries == 3, "one delivery per send, counted before the cascade")
        }
    }

    @Test(
        "on PostgreSQL, replicas claiming at once take every due job exactly once",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func concurrentClaims() async throws {
        try await TestPostgres.withTwoReplicas(
            serviceName: "push-dispatch", migrations: DispatchMigrations.all.postgres
        ) {
            first, second in
            let devices = SQLDeviceRepository(database: PostgresSQLDatabase(first))
            let replicas = [
                SQLDeliveryRepository(database: PostgresSQLDatabase(first)),
                SQLDeliveryRepository(database: PostgresSQLDatabase(second)),
            ]
            for index in 0..<20 {
                _ = try await devices.register(
                    ownerID: "ada", platform: .fcm, token: "token-\(index)", name: nil, now: Self.start)
            }
            for index in 0..<15 {
                _ = try await replicas[index % 2].recordSend(send("n\(index)", to: "ada"), claim: nil)
            }
            // 300 jobs, six workers on two replicas claiming in small batches until nothing is due.
            let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        var mine: [Int64] = []
                        for _ in 0..<200 {
                            let jobs = try await replicas[worker % 2].claimDue(
                                platform: .fcm, owner: "w\(worker)", now: Self.start,
                                leaseUntil: Self.start.addingTimeInterval(60), limit: 7)
                            if jobs.isEmpty { break }
                            mine += jobs.map(\.sequence)
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0 += $1 }
            }
            #expect(claimed.count == 300)
            #expect(Set(claimed).count == 300)
        }
    }
}
