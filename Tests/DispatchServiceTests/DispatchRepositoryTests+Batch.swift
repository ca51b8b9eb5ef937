import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

extension DispatchRepositoryTests {
    @Test(
        "the batched pending read gives each device what its own read gives, at its own sequence, within the limit",
        arguments: TestPostgres.backends)
    func batchedPendingJobs(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let phone = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            let laptop = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            let other = try await devices.register(
                ownerID: "bob", platform: .direct, token: nil, name: nil, now: Self.start)
            for id in ["n1", "n2", "n3"] { _ = try await deliveries.recordSend(send(id, to: "ada"), claim: nil) }
            _ = try await deliveries.recordSend(send("short", to: "ada", ttl: 1), claim: nil)
            _ = try await deliveries.recordSend(send("b1", to: "bob"), claim: nil)
            // The phone's stream wrote n1 and n2; the laptop's wrote nothing yet.
            let phoneJobs = try await deliveries.pendingJobs(
                deviceID: phone.id, after: 0, now: Self.start, limit: 2)
            try await deliveries.record(.sent, for: phoneJobs, now: Self.start)
            let phoneAt = phoneJobs.map(\.sequence).max() ?? 0

            let later = Self.start.addingTimeInterval(10)  // "short" has expired
            let batched = try await deliveries.pendingJobs(
                after: [phone.id: phoneAt, laptop.id: 0, "no-such-device": 0], now: later, limit: 2)

            #expect(batched[phone.id]?.map(\.notificationID) == ["n3"])
            #expect(batched[laptop.id]?.map(\.notificationID) == ["n1", "n2"])  // the limit, in sequence order
            #expect(batched["no-such-device"] == nil)
            #expect(batched[other.id] == nil)  // not asked for
            for deviceID in [phone.id, laptop.id] {
                let single = try await deliveries.pendingJobs(
                    deviceID: deviceID, after: deviceID == phone.id ? phoneAt : 0, now: later, limit: 2)
                #expect(batched[deviceID] == single)
            }
            let short = try #require(
                try await deliveries.deliveries(notificationID: "short", clientID: "backend", now: later))
            #expect(short.allSatisfy { $0.status == .expired })
            #expect(try await deliveries.pendingJobs(after: [:], now: later, limit: 2).isEmpty)
        }
    }

    @Test(
        "two streams of one device that both read a job queued and both wrote it get its first write once between them",
        arguments: TestPostgres.backends)
    func firstWriteCountedOnce(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let phone = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            for id in ["n1", "n2"] { _ = try await deliveries.recordSend(send(id, to: "ada"), claim: nil) }
            // A reconnect opened before the first stream's record committed reads the same jobs, still queued.
            let read = try await deliveries.pendingJobs(deviceID: phone.id, after: 0, now: Self.start, limit: 10)
            let again = try await deliveries.pendingJobs(deviceID: phone.id, after: 0, now: Self.start, limit: 10)
            #expect(read.map(\.status) == [.queued, .queued])
            #expect(again == read)

            let first = try await deliveries.record(.sent, for: read, now: Self.start)
            #expect(first == Set(read.map(\.sequence)))
            let second = try await deliveries.record(.sent, for: again, now: Self.start)
            #expect(second.isEmpty, "the second write of each job is a re-send: \(second)")
            // Nor is a third.
            let third = try await deliveries.record(.sent, for: [read[1]], now: Self.start)
            #expect(third.isEmpty)

            // The path with a transaction (an outcome that reads the device) counts by the row the same way: a job
            // written once before is not at its first attempt; one never written is.
            for id in ["n3", "n4"] { _ = try await deliveries.recordSend(send(id, to: "ada"), claim: nil) }
            let late = try await deliveries.pendingJobs(
                deviceID: phone.id, after: read[1].sequence, now: Self.start, limit: 10)
            #expect(late.map(\.notificationID) == ["n3", "n4"])
            #expect(try await deliveries.record(.sent, for: [late[0]], now: Self.start) == [late[0].sequence])
            // The device registered after the token was seen gone: each job fails (one attempt more), not deactivated.
            let failed = try await deliveries.record(
                .deactivateIfRegisteredBefore(Self.start.addingTimeInterval(-60), reason: "gone"), for: late,
                now: Self.start)
            #expect(failed == [late[1].sequence])
            let statuses = try await deliveries.pendingJobs(deviceID: phone.id, after: 0, now: Self.start, limit: 10)
            #expect(statuses.map(\.notificationID) == ["n1", "n2"], "n3 and n4 ended failed")
        }
    }

    @Test(
        "one record takes any number of jobs, repeated ones too, past PostgreSQL's 65,535 parameters",
        arguments: TestPostgres.backends)
    func recordManyJobs(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let phone = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            for id in ["n1", "n2", "n3"] { _ = try await deliveries.recordSend(send(id, to: "ada"), claim: nil) }
            let real = try await deliveries.pendingJobs(deviceID: phone.id, after: 0, now: Self.start, limit: 10)
            #expect(real.count == 3)
            // Rows that do not exist (a batch's jobs deleted meanwhile) are passed over.
            let gone = (1...70_000).map { offset in
                var job = real[0]
                job.sequence = 1_000_000_000 + Int64(offset)
                return job
            }
            let first = try await deliveries.record(.sent, for: gone + real + [real[2]], now: Self.start)
            #expect(first == Set(real.map(\.sequence)))
            let again = try await deliveries.pendingJobs(deviceID: phone.id, after: 0, now: Self.start, limit: 10)
            #expect(again.map(\.status) == [.sent, .sent, .sent])
            #expect(again.map(\.attempts) == [1, 1, 1])
            // Two of them, the statement every list length shares.
            #expect(try await deliveries.record(.sent, for: Array(real[0...1]), now: Self.start).isEmpty)
            let twice = try await deliveries.pendingJobs(deviceID: phone.id, after: 0, now: Self.start, limit: 10)
            #expect(twice.map(\.attempts) == [2, 2, 1])
        }
    }

    @Test(
        "the devices of a list of ids come back in one read; unknown ids are absent", arguments: TestPostgres.backends)
    func devicesByIDs(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, _ in
            let phone = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: "phone", now: Self.start)
            let other = try await devices.register(
                ownerID: "bob", platform: .direct, token: nil, name: nil, now: Self.start)
            let found = try await devices.devices(ids: [phone.id, other.id, "no-such-device"])
            #expect(Set(found.map(\.id)) == [phone.id, other.id])
            #expect(found.first { $0.id == phone.id }?.ownerID == "ada")
            #expect(try await devices.devices(ids: []).isEmpty)
        }
    }
}
