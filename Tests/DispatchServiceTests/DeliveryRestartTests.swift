import DispatchService
import Foundation
import GRDB
import SharedModels
import TestSupport
import Testing

@Suite("Durable delivery across restarts and crashes")
struct DeliveryRestartTests {
    @Test("jobs accepted before a restart (the worker never ran) are delivered after it, each exactly once")
    func restartDeliversAcceptedJobs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = LiveClock()
        var accepted: [String] = []
        do {
            let unused = ScriptedProvider()  // no script: any call fails the test
            let before = try await DispatchHarness.remote([unused], databasePath: directory.databasePath, clock: clock)
            _ = try await before.registerDevice(user: "alice", platform: .apns, token: "aa11")
            for index in 0..<3 {
                accepted.append(try await before.send(to: "alice", payload: "secret \(index)").notificationId)
            }
            try before.components.sqlite!.close()
            #expect(unused.jobs.isEmpty)
        }

        let provider = ScriptedProvider(script: [.sent, .sent, .sent])
        let after = try await DispatchHarness.remote([provider], databasePath: directory.databasePath, clock: clock)
        try await RunningWorkers.with(after.components.services) { () async throws in
            for id in accepted { #expect(try await after.waitForStatus(id, .sent)) }
        }
        #expect(provider.jobs.map(\.notificationID).sorted() == accepted.sorted())
        for id in accepted {
            let delivery = try #require(try await after.delivery(id))
            #expect(delivery.attempts == 1)
            #expect(delivery.lastError == nil)
        }
    }

    @Test("an attempt cut short by a crash is claimed again once its lease lapses, and recorded once")
    func crashMidAttempt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = LiveClock()
        let delivery = DeliveryConfiguration.fast(lease: .milliseconds(600))
        let crashed = ScriptedProvider(script: [.sent])
        crashed.closeGate()
        let first = try await DispatchHarness.remote(
            [crashed], delivery: delivery, databasePath: directory.databasePath, clock: clock)
        _ = try await first.registerDevice(user: "alice", platform: .apns, token: "bb22")
        let sent = try await first.send(to: "alice").notificationId
        let worker = try #require(first.components.workers.first)
        let dying = Task { try await worker.run() }
        #expect(await eventually { crashed.heldCount == 1 })
        // The process dies mid-attempt: no more lease renewals, and the attempt is never recorded in time.
        dying.cancel()
        #expect(try await first.deliveryRow(sent)?.leaseOwner != nil)

        let provider = ScriptedProvider(script: [.sent])
        let restarted = try await DispatchHarness.remote(
            [provider], delivery: delivery, databasePath: directory.databasePath, clock: clock)
        try await RunningWorkers.with(restarted.components.workers) { () async throws in
            #expect(try await restarted.waitForStatus(sent, .sent))
        }
        #expect(provider.jobs.map(\.notificationID) == [sent])

        // The dead attempt comes back late: its lease is gone, so it records nothing.
        crashed.openGate()
        _ = await dying.result
        let state = try #require(try await restarted.delivery(sent))
        #expect(state.status == .sent)
        #expect(state.attempts == 1)
        #expect(try await restarted.deliveryRow(sent)?.leaseOwner == nil)
    }

    @Test("a job leased by another worker is left alone until the lease lapses, then claimed")
    func lapsedLeaseIsReclaimed() async throws {
        let clock = LiveClock()
        let provider = ScriptedProvider(script: [.sent])
        let harness = try await DispatchHarness.remote([provider], clock: clock)
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "cc33")
        let sent = try await harness.send(to: "alice").notificationId
        let leaseUntil = clock.now.addingTimeInterval(3_600)
        try await harness.components.sqlite!.write { db in
            try db.execute(
                sql: "UPDATE delivery SET lease_owner = 'replica-2', lease_until = ? WHERE notification_id = ?",
                arguments: [Int64(leaseUntil.timeIntervalSince1970 * 1000), sent])
        }
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            // Several idle ticks pass: the live lease keeps the job from this worker.
            try await Task.sleep(for: .milliseconds(400))
            #expect(provider.jobs.isEmpty)
            clock.advance(by: 3_601)
            #expect(try await harness.waitForStatus(sent, .sent))
        }
        #expect(provider.jobs.map(\.notificationID) == [sent])
    }
}
