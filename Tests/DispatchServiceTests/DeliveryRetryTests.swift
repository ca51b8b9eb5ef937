import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("Retries: backoff with jitter, attempt bound, expiry")
struct DeliveryRetryTests {
    @Test("a provider that fails twice then succeeds yields one delivery: sent, attempts 3")
    func failTwiceThenSucceed() async throws {
        let provider = ScriptedProvider(
            script: [
                .retry(after: .zero, reason: "503 ServiceUnavailable"), .retry(after: .zero, reason: "429"), .sent,
            ])
        let harness = try await DispatchHarness.remote([provider])
        let device = try await harness.registerDevice(user: "alice", platform: .apns, token: "dd44")
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .sent))
        }
        let delivery = try #require(try await harness.delivery(sent))
        #expect(delivery.deviceId == device)
        #expect(delivery.platform == .apns)
        #expect(delivery.attempts == 3)
        #expect(delivery.lastError == nil)
        #expect(try await harness.count("delivery") == 1)
        // The same job each time, with the attempts made so far.
        #expect(provider.jobs.map(\.notificationID) == [sent, sent, sent])
        #expect(provider.jobs.map(\.attempts) == [0, 1, 2])
        #expect(Set(provider.jobs.map(\.sequence)).count == 1)
    }

    @Test("a job that keeps failing ends failed after the configured attempts, keeping the last error")
    func maxAttempts() async throws {
        let provider = ScriptedProvider(
            script: [
                .retry(after: .zero, reason: "500 InternalServerError"), .retry(after: .zero, reason: "502"),
                .retry(after: .zero, reason: "503 Shutdown"),
            ])
        let harness = try await DispatchHarness.remote([provider], delivery: .fast(maxAttempts: 3))
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "ee55")
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .failed))
            // Idle ticks pass: a failed job is never attempted again (a fourth call would fail the test).
            try await Task.sleep(for: .milliseconds(300))
        }
        let delivery = try #require(try await harness.delivery(sent))
        #expect(delivery.attempts == 3)
        #expect(delivery.lastError == "503 Shutdown")
        #expect(provider.jobs.count == 3)
    }

    @Test("a permanent refusal ends the delivery failed at once, with the provider's reason")
    func permanentFailure() async throws {
        let provider = ScriptedProvider(script: [.failed(reason: "BadTopic")])
        let harness = try await DispatchHarness.remote([provider])
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "ff66")
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .failed))
        }
        let delivery = try #require(try await harness.delivery(sent))
        #expect(delivery.attempts == 1)
        #expect(delivery.lastError == "BadTopic")
    }

    @Test("a provider's retry hint is honoured up to the cap: the next attempt waits at least that long")
    func providerHint() async throws {
        let provider = ScriptedProvider(script: [.retry(after: .seconds(120), reason: "429 TooManyRequests")])
        var settings = DeliveryConfiguration.fast()
        settings.retry.maxDelay = .seconds(300)
        let harness = try await DispatchHarness.remote([provider], delivery: settings)
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "a7a7")
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .retrying))
            try await Task.sleep(for: .milliseconds(300))
        }
        let row = try #require(try await harness.deliveryRow(sent))
        let nextAttempt = try #require(row.nextAttemptAt)
        #expect(nextAttempt.timeIntervalSince(row.updatedAt) >= 120)
        #expect(row.attempts == 1)
        #expect(row.lastError == "429 TooManyRequests")
        #expect(provider.jobs.count == 1)
    }

    @Test("an absurd Retry-After (10^17 s) is capped at the backoff maximum: the delivery is retried, and sent")
    func absurdHint() async throws {
        // What a provider answering `Retry-After: 99999999999999999` produced before issue 23 (and crashed the
        // dispatcher converting the due time to milliseconds).
        let provider = ScriptedProvider(script: [.retry(after: .seconds(Int.max), reason: "503 UNAVAILABLE"), .sent])
        let harness = try await DispatchHarness.remote([provider])
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "c9c9")
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .sent))
        }
        let delivery = try #require(try await harness.delivery(sent))
        #expect(delivery.attempts == 2)
        #expect(provider.jobs.count == 2)
    }

    @Test("a hint reaching past the notification's expiry ends the delivery expired at once")
    func hintPastExpiryEndsExpired() async throws {
        let provider = ScriptedProvider(script: [.retry(after: .seconds(120), reason: "429 TooManyRequests")])
        var settings = DeliveryConfiguration.fast()
        settings.retry.maxDelay = .seconds(300)
        let harness = try await DispatchHarness.remote([provider], delivery: settings)
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "d0d0")
        let sent = try await harness.send(to: "alice", ttlSeconds: 60).notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .expired))
        }
        let delivery = try #require(try await harness.delivery(sent))
        #expect(delivery.attempts == 1)
        #expect(delivery.lastError == "429 TooManyRequests")
    }

    @Test("a job still retrying when its notification expires ends expired and is not attempted again")
    func expiryWhileRetrying() async throws {
        let clock = LiveClock()
        let provider = ScriptedProvider(script: [.retry(after: .seconds(30), reason: "503 ServiceUnavailable")])
        var settings = DeliveryConfiguration.fast()
        settings.retry.maxDelay = .seconds(300)
        let harness = try await DispatchHarness.remote([provider], delivery: settings, clock: clock)
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "b8b8")
        let sent = try await harness.send(to: "alice", ttlSeconds: 60).notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .retrying))
            clock.advance(by: 61)
            // The worker itself marks it (the row, not only push.status's view), on its next idle tick.
            #expect(try await eventually { try await harness.deliveryRow(sent)?.status == "expired" })
        }
        let delivery = try #require(try await harness.delivery(sent))
        #expect(delivery.status == .expired)
        #expect(delivery.attempts == 1)
        #expect(delivery.lastError == "503 ServiceUnavailable")
        #expect(provider.jobs.count == 1)
    }

    @Test("a remote provider's sent is final: it stays sent after the notification expires and the sweep runs")
    func remoteSentIsFinal() async throws {
        let clock = LiveClock()
        let provider = ScriptedProvider(script: [.sent])
        let harness = try await DispatchHarness.remote([provider], clock: clock)
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "c9c9")
        let direct = try await harness.registerDevice(user: "alice")
        let sent = try await harness.send(to: "alice", ttlSeconds: 60).notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await eventually { try await harness.status(sent).deliveries.contains { $0.status == .sent } })
        }
        clock.advance(by: 61)
        try await harness.components.pushes.expireAndPurge()
        let deliveries = try await harness.status(sent).deliveries
        #expect(deliveries.first { $0.platform == .apns }?.status == .sent)
        #expect(deliveries.first { $0.platform == .apns }?.attempts == 1)
        // The direct device never connected: its job expired, untouched by the apns worker.
        #expect(deliveries.first { $0.deviceId == direct }?.status == .expired)
        #expect(deliveries.first { $0.deviceId == direct }?.attempts == 0)
    }
}

@Suite("RetryPolicy")
struct RetryPolicyTests {
    @Test("the backoff ceiling doubles from the base and stops at the cap; the jitter scales it")
    func exponentialWithCap() {
        let full = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(300), randomFraction: { 1 })
        #expect(
            (1...10).map { full.delay(afterAttempts: $0) }
                == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300].map {
                    Duration.seconds($0)
                })
        #expect(full.delay(afterAttempts: 1_000) == .seconds(300))
        let half = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(300), randomFraction: { 0.5 })
        #expect(half.delay(afterAttempts: 4) == .seconds(4))
        #expect(half.delay(afterAttempts: 20) == .seconds(150))
    }

    @Test("full jitter: every delay lies between zero and the ceiling")
    func jitterBounds() {
        let policy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(300))
        for attempts in 1...12 {
            let ceiling = Duration.seconds(min(300, 1 << (attempts - 1)))
            for _ in 0..<20 {
                let delay = policy.delay(afterAttempts: attempts)
                #expect(delay >= .zero && delay <= ceiling)
            }
        }
    }

    @Test("a provider's hint is a floor up to the cap: at least the hint, never past SECUREPUSH_DELIVERY_BACKOFF_MAX")
    func hintIsAFloor() {
        let none = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(300), randomFraction: { 0 })
        #expect(none.delay(afterAttempts: 3) == .zero)
        #expect(none.delay(afterAttempts: 3, hint: .seconds(30)) == .seconds(30))
        #expect(none.delay(afterAttempts: 3, hint: .seconds(3_600)) == .seconds(300))
        let full = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(300), randomFraction: { 1 })
        #expect(full.delay(afterAttempts: 5, hint: .seconds(2)) == .seconds(16))
    }

    @Test("resolve: a hint (capped) reaching past the notification's expiry ends the delivery expired")
    func hintPastExpiry() {
        let policy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(300), randomFraction: { 1 })
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let retry = DeliveryOutcome.retry(after: .seconds(120), reason: "429 Too Many Requests")
        #expect(
            policy.resolve(retry, attempts: 1, expiresAt: now.addingTimeInterval(60), now: now)
                == .expired(reason: "429 Too Many Requests"))
        #expect(
            policy.resolve(retry, attempts: 1, expiresAt: now.addingTimeInterval(600), now: now)
                == .retry(after: .seconds(120), reason: "429 Too Many Requests"))
        // An absurd hint is capped first: a notification living longer than the cap is retried at the cap.
        let absurd = DeliveryOutcome.retry(after: .seconds(86_400), reason: "503")
        #expect(
            policy.resolve(absurd, attempts: 1, expiresAt: now.addingTimeInterval(3_600), now: now)
                == .retry(after: .seconds(300), reason: "503"))
        #expect(
            policy.resolve(absurd, attempts: 1, expiresAt: now.addingTimeInterval(200), now: now)
                == .expired(reason: "503"))
    }

    @Test("resolve: a retry gets its backoff, or becomes failed with its reason at the last attempt")
    func resolve() {
        let policy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(300), maxAttempts: 3, randomFraction: { 1 })
        #expect(
            policy.resolve(.retry(after: .zero, reason: "429"), attempts: 2)
                == .retry(after: .seconds(2), reason: "429"))
        #expect(policy.resolve(.retry(after: .zero, reason: "429"), attempts: 3) == .failed(reason: "429"))
        #expect(policy.resolve(.sent, attempts: 3) == .sent)
        #expect(policy.resolve(.deactivate(reason: "Unregistered"), attempts: 1) == .deactivate(reason: "Unregistered"))
    }
}
