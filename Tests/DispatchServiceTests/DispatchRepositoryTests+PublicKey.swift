import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

extension DispatchRepositoryTests {
    @Test(
        "a device's public key is stored, replaced or cleared by re-registering, and sends can target chosen devices",
        arguments: TestPostgres.backends)
    func publicKeys(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let sealed = try await devices.register(
                ownerID: "ada", platform: .apns, token: "bb22", name: nil, apnsMode: nil, publicKey: "key-1",
                maxDevices: nil, now: Self.start
            ).device
            let plain = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            #expect(try await devices.device(id: sealed.id)?.publicKey == "key-1")
            #expect(try await devices.devices(ownerID: "ada").map(\.info.sealed) == [true, false])
            let rekeyed = try await devices.register(
                ownerID: "ada", platform: .apns, token: "bb22", name: nil, apnsMode: nil, publicKey: "key-2",
                maxDevices: nil, now: Self.start.addingTimeInterval(1)
            ).device
            #expect(rekeyed.id == sealed.id)
            #expect(try await devices.device(id: sealed.id)?.publicKey == "key-2")
            _ = try await devices.register(
                ownerID: "ada", platform: .apns, token: "bb22", name: nil, now: Self.start.addingTimeInterval(2))
            #expect(try await devices.device(id: sealed.id)?.publicKey == nil)

            var record = send("n-sealed", to: "ada")
            record.deviceIDs = [plain.id]
            let recorded = try await deliveries.recordSend(record, claim: nil)
            #expect(recorded.jobs.map(\.deviceID) == [plain.id])
            #expect(recorded.result.deliveries.map(\.deviceId) == [plain.id])
        }
    }
}
