import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// `push.send` reads the recipient's devices and `devices.ack` the acknowledging device: on SQLite both are indexed
/// lookups read on the calling thread (no hop to a reader's queue and back); without that capability (PostgreSQL)
/// they stay async. Either way they return the same devices.
@Suite("Device lookups on the send and ack paths")
struct DeviceLookupReadPathTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Registers two devices for `ada` and one for `bob` through `repository`, then looks them up the way
    /// `push.send` (by owner) and `devices.ack` (by id) do; returns what each lookup found.
    func lookUp(_ repository: SQLDeviceRepository) async throws -> (byOwner: [String], byID: String?, missing: Bool) {
        let first = try await repository.register(
            ownerID: "ada", platform: .direct, token: nil, name: "phone", now: Self.start)
        let second = try await repository.register(
            ownerID: "ada", platform: .apns, token: "aa01", name: "tablet", now: Self.start.addingTimeInterval(1))
        _ = try await repository.register(ownerID: "bob", platform: .direct, token: nil, name: nil, now: Self.start)
        let byOwner = try await repository.devices(ownerID: "ada").map(\.id)
        #expect(byOwner == [first.id, second.id])
        let byID = try await repository.device(id: second.id)
        #expect(byID?.ownerID == "ada")
        #expect(byID?.token == "aa01")
        return (byOwner, byID?.id, try await repository.device(id: "no-such-device") == nil)
    }

    @Test("on SQLite the lookups read on the calling thread and find the same devices")
    func sqliteReadsImmediately() async throws {
        let database = try ServiceDatabase.sqlite(path: nil, migrations: DispatchMigrations.all).sql
        let counting = ImmediateReadCountingDatabase(try #require(database as? any SQLDatabase & SQLImmediateReading))
        let found = try await lookUp(SQLDeviceRepository(database: counting))
        #expect(found.missing)
        #expect(counting.reads == .init(async: 0, immediate: 3))
    }

    @Test("a database without immediate reads (as PostgreSQL) answers the same lookups asynchronously")
    func asyncFallback() async throws {
        let counting = ReadCountingDatabase(
            try ServiceDatabase.sqlite(path: nil, migrations: DispatchMigrations.all).sql)
        let found = try await lookUp(SQLDeviceRepository(database: counting))
        #expect(found.missing)
        #expect(counting.reads == .init(async: 3, immediate: 0))
    }
}
