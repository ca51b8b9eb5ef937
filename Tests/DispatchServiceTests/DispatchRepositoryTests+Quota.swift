import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

extension DispatchRepositoryTests {
    @Test(
        "the device quota holds under 30 concurrent registrations; updates and moves are counted right",
        arguments: TestPostgres.backends)
    func deviceQuota(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, _ in
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<30 {
                    group.addTask {
                        do {
                            _ = try await devices.register(
                                ownerID: "ada", platform: .direct, token: "t\(index)", name: nil, apnsMode: nil,
                                maxDevices: 4, now: Self.start)
                            return true
                        } catch let error as DispatchError {
                            #expect(error == .quotaExceeded(.devicesPerUser, limit: 4, appID: "default"))
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 4)
            let registered = try await devices.devices(ownerID: "ada")
            #expect(registered.count == 4)

            // Full: an own token again is an update; a token of another user's device cannot move in.
            let again = try await devices.register(
                ownerID: "ada", platform: .direct, token: registered[0].token, name: "x", apnsMode: nil,
                maxDevices: 4, now: Self.start)
            #expect(again.device.id == registered[0].id)
            #expect(again.previousOwnerID == nil)
            _ = try await devices.register(ownerID: "eve", platform: .apns, token: "eeee", name: nil, now: Self.start)
            await #expect(throws: DispatchError.quotaExceeded(.devicesPerUser, limit: 4, appID: "default")) {
                _ = try await devices.register(
                    ownerID: "ada", platform: .apns, token: "eeee", name: nil, apnsMode: nil, maxDevices: 4,
                    now: Self.start)
            }
            // With room, another user's APNs token is a pending device, which counts until it expires.
            let pending = try await devices.register(
                ownerID: "ada", platform: .apns, token: "eeee", name: nil, apnsMode: nil, maxDevices: 5,
                now: Self.start)
            #expect(pending.device.isPendingVerification)
            #expect(pending.previousOwnerID == nil)
            await #expect(throws: DispatchError.quotaExceeded(.devicesPerUser, limit: 5, appID: "default")) {
                _ = try await devices.register(
                    ownerID: "ada", platform: .direct, token: "one-more", name: nil, apnsMode: nil, maxDevices: 5,
                    now: Self.start)
            }
            _ = try await devices.register(
                ownerID: "ada", platform: .direct, token: "one-more", name: nil, apnsMode: nil, maxDevices: 5,
                now: Self.start.addingTimeInterval(TimeInterval(DeviceVerification.window.components.seconds) + 1))
            // A Web Push subscription (it carries its own keys) moves at once, reporting whose the device was.
            _ = try await devices.register(ownerID: "eve", platform: .webpush, token: "wp", name: nil, now: Self.start)
            let moved = try await devices.register(
                ownerID: "ada", platform: .webpush, token: "wp", name: nil, apnsMode: nil, maxDevices: 7,
                now: Self.start)
            #expect(moved.previousOwnerID == "eve")
            #expect(moved.device.ownerID == "ada")
        }
    }

    @Test(
        "the sweep's query finds exactly the given devices with a queued, unexpired job",
        arguments: TestPostgres.backends)
    func devicesWithQueuedJobs(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let queued = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            let other = try await devices.register(
                ownerID: "bob", platform: .direct, token: nil, name: nil, now: Self.start)
            let idle = try await devices.register(
                ownerID: "cy", platform: .direct, token: nil, name: nil, now: Self.start)
            _ = try await deliveries.recordSend(send("n1", to: "ada"), claim: nil)
            _ = try await deliveries.recordSend(send("n2", to: "bob"), claim: nil)

            let all = [queued.id, other.id, idle.id]
            #expect(try await deliveries.devicesWithQueuedJobs(among: all, now: Self.start) == [queued.id, other.id])
            #expect(
                try await deliveries.devicesWithQueuedJobs(among: [idle.id, queued.id], now: Self.start) == [queued.id])
            #expect(try await deliveries.devicesWithQueuedJobs(among: [], now: Self.start).isEmpty)
            // Written (sent) jobs need no wake-up; expired ones neither.
            let jobs = try await deliveries.pendingJobs(deviceID: queued.id, after: 0, now: Self.start, limit: 10)
            try await deliveries.record(.sent, for: jobs, now: Self.start)
            #expect(try await deliveries.devicesWithQueuedJobs(among: all, now: Self.start) == [other.id])
            #expect(
                try await deliveries.devicesWithQueuedJobs(among: all, now: Self.start.addingTimeInterval(3_601))
                    .isEmpty)
        }
    }
}
