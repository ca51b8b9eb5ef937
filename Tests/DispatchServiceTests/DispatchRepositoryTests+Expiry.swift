import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// A direct stream's drain marks its device's jobs past expiry `expired` before it reads what is pending, and writes
/// nothing when none is (once per `push.send` to a connected device); the scheduled sends' round writes only when a
/// send is due.
extension DispatchRepositoryTests {
    /// `database` counting its reads and writes; on SQLite with reads on the calling thread, as the service's.
    func counting(_ database: any SQLDatabase) -> ReadCountingDatabase {
        guard let immediate = database as? any SQLDatabase & SQLImmediateReading else {
            return ReadCountingDatabase(database)
        }
        return ImmediateReadCountingDatabase(immediate)
    }

    /// The status the database holds for the notification's delivery (read by hand: `deliveries(…)` expires first).
    func storedStatus(_ notificationID: String, _ database: any SQLDatabase) async throws -> String? {
        try await database.readOne("SELECT status FROM delivery WHERE notification_id = ?", [notificationID])?
            .decode(0, as: String.self)
    }

    @Test(
        "a drain with nothing past expiry reads and writes nothing, alone or in a batch, at any sequence",
        arguments: TestPostgres.backends)
    func drainWithoutExpiryOnlyReads(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { base in
            let database = counting(base)
            let devices = SQLDeviceRepository(database: database)
            let deliveries = SQLDeliveryRepository(database: database)
            let device = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            for id in ["n1", "n2", "n3"] { _ = try await deliveries.recordSend(send(id, to: "ada"), claim: nil) }
            let writes = database.writes
            let all = try await deliveries.pendingJobs(deviceID: device.id, after: 0, now: Self.start, limit: 10)
            #expect(all.map(\.notificationID) == ["n1", "n2", "n3"])
            let batched = try await deliveries.pendingJobs(after: [device.id: 0], now: Self.start, limit: 10)
            #expect(batched[device.id] == all)
            #expect(database.writes == writes, "nothing past expiry: no expiring statement")

            // The stream wrote n1 and n2: only n3 is still pending for it; a new stream (sequence 0) gets all three.
            try await deliveries.record(.sent, for: Array(all.prefix(2)), now: Self.start)
            let at = all[1].sequence
            let afterWrites = database.writes
            #expect(
                try await deliveries.pendingJobs(deviceID: device.id, after: at, now: Self.start, limit: 10)
                    .map(\.notificationID) == ["n3"])
            #expect(
                try await deliveries.pendingJobs(after: [device.id: at], now: Self.start, limit: 10)[device.id]?
                    .map(\.notificationID) == ["n3"])
            #expect(
                try await deliveries.pendingJobs(deviceID: device.id, after: 0, now: Self.start, limit: 10)
                    .map(\.notificationID) == ["n1", "n2", "n3"])
            #expect(database.writes == afterWrites)
        }
    }

    @Test(
        "a drain marks every job of its device past expiry expired first: past its limit, and written ones it skips",
        arguments: TestPostgres.backends, [false, true])
    func drainMarksExpired(backend: TestDatabaseBackend, batched: Bool) async throws {
        try await withDatabase(backend) { database in
            let devices = SQLDeviceRepository(database: database)
            let deliveries = SQLDeliveryRepository(database: database)
            let pending = { (deviceID: String, after: Int64, now: Date, limit: Int) in
                batched
                    ? try await deliveries.pendingJobs(after: [deviceID: after], now: now, limit: limit)[deviceID] ?? []
                    : try await deliveries.pendingJobs(deviceID: deviceID, after: after, now: now, limit: limit)
            }
            let phone = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            let tablet = try await devices.register(
                ownerID: "bob", platform: .direct, token: nil, name: nil, now: Self.start)
            // ada's phone, in sequence order: two that live on, one past a limit of two, and the one its stream
            // wrote last (another replica committed the first three late, so they are still queued before it).
            for (id, ttl) in [("long1", 3600.0), ("long2", 3600), ("short", 10), ("written", 10)] {
                _ = try await deliveries.recordSend(send(id, to: "ada", ttl: ttl), claim: nil)
            }
            // bob's tablet: one its stream wrote, and nothing else.
            _ = try await deliveries.recordSend(send("bobs", to: "bob", ttl: 10), claim: nil)
            let written = try #require(
                try await pending(phone.id, 0, Self.start, 10).first { $0.notificationID == "written" })
            let bobs = try #require(try await pending(tablet.id, 0, Self.start, 10).first)
            try await deliveries.record(.sent, for: [written, bobs], now: Self.start)

            let later = Self.start.addingTimeInterval(11)
            #expect(
                try await pending(phone.id, written.sequence, later, 2).map(\.notificationID) == ["long1", "long2"])
            #expect(try await storedStatus("short", database) == "expired")
            #expect(try await storedStatus("written", database) == "expired")
            #expect(try await storedStatus("long1", database) == "queued")
            #expect(try await storedStatus("bobs", database) == "sent", "another device's job: not this drain's")
            #expect(try await pending(tablet.id, bobs.sequence, later, 10).isEmpty)
            #expect(try await storedStatus("bobs", database) == "expired")
        }
    }

    @Test("the scheduled sends' round writes only when a send is due", arguments: TestPostgres.backends)
    func scheduleRoundReadsFirst(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { base in
            let database = counting(base)
            let devices = SQLDeviceRepository(database: database)
            let deliveries = SQLDeliveryRepository(database: database)
            _ = try await devices.register(ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            var scheduled = send("later", to: "ada", ttl: 7200)
            scheduled.sendAt = Self.start.addingTimeInterval(60)
            _ = try await deliveries.recordSend(scheduled, claim: nil)
            let writes = database.writes
            let lease = Self.start.addingTimeInterval(30)
            #expect(
                try await deliveries.claimDueSchedules(owner: "r1", now: Self.start, leaseUntil: lease, limit: 10)
                    .isEmpty)
            #expect(database.writes == writes, "nothing due: no claiming statement")
            let due = Self.start.addingTimeInterval(60)
            let claimed = try await deliveries.claimDueSchedules(
                owner: "r1", now: due, leaseUntil: due.addingTimeInterval(30), limit: 10)
            #expect(claimed.map(\.notificationID) == ["later"])
            #expect(database.writes == writes + 1)
            // Claimed by r1 until its lease lapses: nothing for r2 before, the same send after.
            #expect(
                try await deliveries.claimDueSchedules(
                    owner: "r2", now: due.addingTimeInterval(1), leaseUntil: due.addingTimeInterval(31), limit: 10
                ).isEmpty)
            #expect(database.writes == writes + 1)
            #expect(
                try await deliveries.claimDueSchedules(
                    owner: "r2", now: due.addingTimeInterval(31), leaseUntil: due.addingTimeInterval(61), limit: 10
                ).map(\.notificationID) == ["later"])
        }
    }
}
