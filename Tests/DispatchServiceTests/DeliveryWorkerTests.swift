import DispatchService
import Foundation
import GRDB
import Logging
import ServiceLifecycle
import SharedModels
import Synchronization
import TestSupport
import Testing

@Suite("The delivery worker: concurrency, wake-ups, privacy, shutdown")
struct DeliveryWorkerTests {
    @Test("at most the configured number of attempts are in flight, and only those jobs are claimed")
    func concurrencyLimit() async throws {
        let provider = ScriptedProvider(script: Array(repeating: .sent, count: 12))
        provider.closeGate()
        let harness = try await DispatchHarness.remote([provider], delivery: .fast(concurrency: 3))
        for index in 0..<12 {
            _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "token-\(index)")
        }
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(await eventually { provider.heldCount == 3 })
            // Idle ticks pass with the attempts held: no fourth is started, no further job claimed.
            try await Task.sleep(for: .milliseconds(300))
            #expect(provider.heldCount == 3)
            #expect(try await harness.leasedCount() == 3)
            provider.openGate()
            #expect(
                try await eventually { try await harness.status(sent).deliveries.allSatisfy { $0.status == .sent } })
        }
        #expect(provider.maxInFlight == 3)
        #expect(provider.jobs.count == 12)
        #expect(Set(provider.jobs.map(\.deviceID)).count == 12)
    }

    @Test("the provider gets a job with the id, the device and its token, never the payload")
    func jobCarriesOnlyTheID() async throws {
        let clock = LiveClock()
        let provider = ScriptedProvider(script: [.sent])
        let harness = try await DispatchHarness.remote([provider], clock: clock)
        let device = try await harness.registerDevice(user: "alice", platform: .apns, token: "0a1b2c3d")
        let payload = "the secret text \(UUID().uuidString)"
        let before = clock.now
        let sent = try await harness.send(to: "alice", payload: payload, ttlSeconds: 3_600).notificationId
        let after = clock.now
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .sent))
        }
        let job = try #require(provider.jobs.first)
        #expect(job.notificationID == sent)
        #expect(job.deviceID == device)
        #expect(job.platform == .apns)
        #expect(job.deviceToken == "0a1b2c3d")
        #expect(job.status == .queued)
        #expect(job.attempts == 0)
        // About an hour after the send was accepted (the store's clock, not this one): within 2 s of an hour after
        // the clock before the call and after it (a loaded machine may take seconds over the call).
        #expect(job.expiresAt.timeIntervalSince(before) > 3_600 - 2)
        #expect(job.expiresAt.timeIntervalSince(after) < 3_600 + 2)
        #expect(job.apnsMode == nil)
        #expect(job.traceParent == nil)
        // `traceParent` is W3C trace context only (ids of a trace and a span), never anything of the notification;
        // `sentAt` is when the send was accepted (for the latency metric); `priority` and `collapseID` are the send's
        // delivery controls, chosen by the backend.
        #expect(
            Mirror(reflecting: job).children.compactMap(\.label)
                == [
                    "sequence", "notificationID", "deviceID", "platform", "deviceToken", "status", "attempts",
                    "expiresAt", "apnsMode", "traceParent", "sentAt", "challenge", "appID", "priority", "collapseID",
                ])
        #expect(job.challenge == nil)
        #expect(!String(describing: job).contains(payload))
        #expect(!String(reflecting: job).contains(payload))
        #expect(harness.store.storedCalls.map(\.params.payload) == [payload])
    }

    @Test("push.send wakes a sleeping worker: delivery does not wait for the idle tick")
    func pushSendWakesTheWorker() async throws {
        let provider = ScriptedProvider(script: [.sent, .sent])
        let harness = try await DispatchHarness.remote([provider], delivery: .fast(idle: .seconds(60)))
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "b4b4")
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            // The worker looked, found nothing and sleeps for up to a minute; each send must wake it.
            try await Task.sleep(for: .milliseconds(100))
            for _ in 0..<2 {
                let sent = try await harness.send(to: "alice").notificationId
                #expect(
                    try await eventually(timeout: .seconds(5)) { try await harness.delivery(sent)?.status == .sent })
            }
        }
        #expect(provider.jobs.count == 2)
    }

    @Test("an idle worker sleeps: no attempts and no database polling until rung or due")
    func noBusyLoop() async throws {
        let provider = ScriptedProvider(script: [.retry(after: .seconds(3_600), reason: "429")])
        let harness = try await DispatchHarness.remote([provider])
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "c5c5")
        let sent = try await harness.send(to: "alice").notificationId
        let deliveries = CountingDeliveries(SQLDeliveryRepository(database: harness.components.database.sql))
        let doorbell = WakeUpSignal()
        var settings = DeliveryConfiguration.fast(idle: .seconds(60))
        settings.retry.maxDelay = .seconds(3_600)  // the hint is honoured up to the cap
        let worker = DeliveryWorker(
            provider: provider, deliveries: deliveries, doorbell: doorbell,
            configuration: settings, now: { harness.clock.now }, logger: .quiet)
        try await RunningWorkers.with([worker]) { () async throws in
            #expect(try await harness.waitForStatus(sent, .retrying))
            let claimsAfterAttempt = deliveries.claims
            try await Task.sleep(for: .milliseconds(500))
            #expect(deliveries.claims == claimsAfterAttempt)
            #expect(provider.jobs.count == 1)

            doorbell.wake()
            #expect(await eventually { deliveries.claims == claimsAfterAttempt + 1 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(deliveries.claims == claimsAfterAttempt + 1)
            #expect(provider.jobs.count == 1)
        }
        #expect(provider.shutdowns == 1)
    }

    @Test("graceful shutdown lets the attempt in flight finish and be recorded, then shuts the provider down")
    func gracefulShutdown() async throws {
        let provider = ScriptedProvider(script: [.sent])
        provider.closeGate()
        let harness = try await DispatchHarness.remote([provider])
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "d6d6")
        let sent = try await harness.send(to: "alice").notificationId
        // The app loader owns the providers: it comes first, so it stops (shutting them down) after the workers.
        let services: [any Service] = [harness.components.appLoader] + harness.components.workers
        let group = ServiceGroup(configuration: .init(services: services, logger: .quiet))
        let stopped = Mutex(false)
        let run = Task {
            try await group.run()
            stopped.withLock { $0 = true }
        }
        #expect(await eventually { provider.heldCount == 1 })
        await group.triggerGracefulShutdown()
        try await Task.sleep(for: .milliseconds(200))
        #expect(stopped.withLock { $0 } == false)
        #expect(provider.shutdowns == 0)

        provider.openGate()
        try await run.value
        let delivery = try #require(try await harness.delivery(sent))
        #expect(delivery.status == .sent)
        #expect(delivery.attempts == 1)
        #expect(provider.shutdowns == 1)
    }
}

extension DispatchHarness {
    /// How many delivery rows a worker holds a lease on.
    func leasedCount() async throws -> Int {
        try await components.sqlite!.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM delivery WHERE lease_owner IS NOT NULL") ?? -1
        }
    }
}
