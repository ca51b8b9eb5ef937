import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

extension DispatchRepositoryTests {
    @Test(
        "one new token registered by 8 users at once: one device, 7 pending; two verifying at once leave one device",
        arguments: TestPostgres.backends)
    func concurrentRegistrationsAndVerifications(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, _ in
            let users = (0..<8).map { "user\($0)" }
            let registrations = try await withThrowingTaskGroup(of: DeviceRegistration.self) { group in
                for user in users {
                    group.addTask {
                        try await devices.register(
                            ownerID: user, platform: .fcm, token: "shared-token", name: nil, apnsMode: nil,
                            publicKey: nil, maxDevices: 10, now: Self.start)
                    }
                }
                return try await group.reduce(into: [DeviceRegistration]()) { $0.append($1) }
            }
            let owners = registrations.filter { !$0.device.isPendingVerification }
            #expect(owners.count == 1)
            let pending = registrations.filter(\.device.isPendingVerification)
            #expect(pending.count == 7)
            #expect(pending.allSatisfy { $0.challenge != nil && $0.previousOwnerID == nil })
            let owner = try #require(owners.first?.device.ownerID)

            // Two of the pending users answer their own challenges at the same moment: both are right, and the
            // token's device is moved one at a time, so exactly one device names the token afterwards.
            let racers = Array(pending.prefix(2))
            let outcomes = try await withThrowingTaskGroup(of: DeviceVerificationOutcome.self) { group in
                for racer in racers {
                    group.addTask {
                        try await devices.verify(
                            id: racer.device.id, ownerID: racer.device.ownerID, challenge: racer.challenge!,
                            now: Self.start.addingTimeInterval(1))
                    }
                }
                return try await group.reduce(into: [DeviceVerificationOutcome]()) { $0.append($1) }
            }
            var holders: [String] = []
            for user in users {
                holders += try await devices.devices(ownerID: user).filter { $0.token == "shared-token" }.map(\.ownerID)
            }
            #expect(holders.count == 1)
            #expect(racers.map(\.device.ownerID).contains(holders.first ?? ""))
            #expect(try await devices.devices(ownerID: owner).isEmpty)
            for outcome in outcomes {
                guard case .verified = outcome else {
                    Issue.record("a right answer was refused: \(outcome)")
                    continue
                }
            }
            // The others still wait, each with their own pending device.
            for other in pending.dropFirst(2) {
                #expect(
                    try await devices.pendingDevices(ownerID: other.device.ownerID, now: Self.start).map(\.id) == [
                        other.device.id
                    ])
            }
        }
    }
}
