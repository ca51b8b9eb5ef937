import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

extension DispatchRepositoryTests {
    @Test(
        "one new token registered by 8 users at once: one device, 7 pending, one challenge; two verifying at once move it one after the other",
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
            #expect(pending.allSatisfy { $0.previousOwnerID == nil })
            // One challenge reached the token, however many asked at once.
            #expect(pending.filter { $0.challenge != nil }.count == 1)
            let owner = try #require(owners.first?.device.ownerID)

            // Two of them get a challenge of their own (one push slot per token per 30 s), then answer at the same
            // moment: both are right, so the device moves twice, one move after the other, never both from the
            // first owner.
            var racers: [DeviceRegistration] = []
            for (index, registration) in pending.prefix(2).enumerated() {
                racers.append(
                    try await devices.register(
                        ownerID: registration.device.ownerID, platform: .fcm, token: "shared-token", name: nil,
                        apnsMode: nil, publicKey: nil, maxDevices: 10,
                        now: Self.start.addingTimeInterval(31 * Double(index + 1))))
            }
            #expect(racers.map(\.device.id) == pending.prefix(2).map(\.device.id))
            let outcomes = try await withThrowingTaskGroup(of: DeviceVerificationOutcome.self) { group in
                for racer in racers {
                    group.addTask {
                        try await devices.verify(
                            id: racer.device.id, ownerID: racer.device.ownerID,
                            challenge: try #require(racer.challenge),
                            maxDevices: 10, now: Self.start.addingTimeInterval(63))
                    }
                }
                return try await group.reduce(into: [DeviceVerificationOutcome]()) { $0.append($1) }
            }
            var moves: [DeviceRegistration] = []
            for outcome in outcomes {
                guard case .verified(let moved) = outcome else {
                    Issue.record("a right answer was refused: \(outcome)")
                    continue
                }
                moves.append(moved)
            }
            #expect(moves.count == 2)
            let first = try #require(moves.first { $0.previousOwnerID == owner })
            let second = try #require(moves.first { $0.previousOwnerID == first.device.ownerID })
            #expect(second.replacedDeviceID == first.device.id)
            #expect(try await devices.devices(ownerID: owner).isEmpty)
            #expect(try await devices.devices(ownerID: first.device.ownerID).isEmpty)
            #expect(try await devices.devices(ownerID: second.device.ownerID).map(\.id) == [second.device.id])
            // The others still wait, each with their own pending device.
            for other in pending.dropFirst(2) {
                #expect(
                    try await devices.pendingDevices(ownerID: other.device.ownerID, now: Self.start).map(\.id) == [
                        other.device.id
                    ])
            }
        }
    }

    @Test(
        "a verification that would pass the device quota is refused and uses no try", arguments: TestPostgres.backends)
    func quotaAtVerification(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, _ in
            _ = try await devices.register(
                ownerID: "eve", platform: .wns, token: "https://wns/x", name: nil, now: Self.start)
            let pending = try await devices.register(
                ownerID: "ada", platform: .wns, token: "https://wns/x", name: nil, apnsMode: nil, publicKey: nil,
                maxDevices: 3, now: Self.start)
            let challenge = try #require(pending.challenge)
            // A replica whose clock runs ahead sees the pending device expired and lets ada fill her quota.
            let ahead = Self.start.addingTimeInterval(TimeInterval(DeviceVerification.window.components.seconds) + 1)
            for index in 0..<3 {
                _ = try await devices.register(
                    ownerID: "ada", platform: .direct, token: "d\(index)", name: nil, apnsMode: nil, publicKey: nil,
                    maxDevices: 3, now: ahead)
            }
            // Another replica, still within the window, must not move a fourth device in.
            await #expect(throws: DispatchError.quotaExceeded(.devicesPerUser, limit: 3, appID: "default")) {
                _ = try await devices.verify(
                    id: pending.device.id, ownerID: "ada", challenge: challenge, maxDevices: 3,
                    now: Self.start.addingTimeInterval(1))
            }
            #expect(try await devices.devices(ownerID: "eve").count == 1)
            #expect(try await devices.devices(ownerID: "ada").count == 3)
            // Room again: the same answer works (the refusal used no try).
            #expect(
                try await devices.unregister(
                    id: try await devices.devices(ownerID: "ada")[0].id, ownerID: "ada", now: Self.start))
            guard
                case .verified = try await devices.verify(
                    id: pending.device.id, ownerID: "ada", challenge: challenge, maxDevices: 3,
                    now: Self.start.addingTimeInterval(2))
            else {
                Issue.record("the right answer was refused with room in the quota")
                return
            }
            #expect(try await devices.devices(ownerID: "eve").isEmpty)
        }
    }

    @Test(
        "12 wrong answers at once use exactly the five tries: four wrong, one last, seven find no pending device",
        arguments: TestPostgres.backends)
    func concurrentWrongAnswers(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, _ in
            _ = try await devices.register(ownerID: "eve", platform: .apns, token: "apns-x", name: nil, now: Self.start)
            let pending = try await devices.register(
                ownerID: "mallory", platform: .apns, token: "apns-x", name: nil, apnsMode: nil, publicKey: nil,
                maxDevices: 10, now: Self.start)
            #expect(pending.device.isPendingVerification)
            let outcomes = try await withThrowingTaskGroup(of: DeviceVerificationOutcome.self) { group in
                for guess in 0..<12 {
                    group.addTask {
                        try await devices.verify(
                            id: pending.device.id, ownerID: "mallory", challenge: "wrong-guess-\(guess)",
                            maxDevices: 10, now: Self.start.addingTimeInterval(1))
                    }
                }
                return try await group.reduce(into: [DeviceVerificationOutcome]()) { $0.append($1) }
            }
            let wrong = outcomes.compactMap { outcome -> Int? in
                if case .wrongChallenge(let left) = outcome { return left }
                return nil
            }
            // Each try is counted once, in order, whatever the interleaving.
            #expect(wrong.sorted() == [1, 2, 3, 4])
            #expect(outcomes.filter { $0 == .triesExhausted }.count == 1)
            #expect(outcomes.filter { $0 == .notFound }.count == 7)
            #expect(try await devices.pendingDevices(ownerID: "mallory", now: Self.start).isEmpty)
            #expect(try await devices.devices(ownerID: "eve").count == 1)
        }
    }
}
