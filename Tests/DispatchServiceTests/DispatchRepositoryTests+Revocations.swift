import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

extension DispatchRepositoryTests {
    @Test(
        "the revocation outbox: device changes queue rows; batches are claimed once, kept under their id until answered",
        arguments: TestPostgres.backends)
    func revocationOutbox(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            let devices = SQLDeviceRepository(database: database)
            let outbox = DeviceRevocationOutbox(database: database, staleAfter: .seconds(30))
            var ids: [String] = []
            for token in ["a1", "b2", "c3"] {
                let device = try await devices.register(
                    ownerID: "ada", platform: .apns, token: token, name: nil, apnsMode: nil, publicKey: "key",
                    maxDevices: nil, now: Self.start
                ).device
                ids.append(device.id)
                #expect(try await devices.unregister(id: device.id, ownerID: "ada", now: Self.start))
            }
            #expect(try await outbox.pendingCount() == 3)

            let first = try #require(try await outbox.claim(limit: 2, now: Self.start))
            #expect(first.deviceIDs.count == 2)
            // A second claim (another replica) takes only what nobody holds.
            let second = try #require(try await outbox.claim(limit: 2, now: Self.start))
            #expect(Set(first.deviceIDs + second.deviceIDs) == Set(ids))
            #expect(first.id != second.id)
            #expect(try await outbox.claim(limit: 2, now: Self.start) == nil)

            // The first call failed: it is claimed again at once, under the same id.
            try await outbox.release(first)
            #expect(try await outbox.claim(limit: 2, now: Self.start) == first)
            try await outbox.remove(first)
            #expect(try await outbox.pendingCount() == 1)
            // The second one's sender died: after 30 s another claim sends it again, same id.
            #expect(try await outbox.claim(limit: 2, now: Self.start.addingTimeInterval(29)) == nil)
            #expect(try await outbox.claim(limit: 2, now: Self.start.addingTimeInterval(31)) == second)
            try await outbox.remove(second)
            #expect(try await outbox.pendingCount() == 0)
        }
    }
}
