import Foundation
import SecurePushClient
import SharedModels
import Synchronization

/// One user, one direct-channel device, one backend: the moving parts of the send-path benchmark.
final class SendPathRun: Sendable {
    /// The sustained (closed-loop) phase.
    struct SustainedFigures: Codable, Sendable {
        var sends: Int
        var concurrency: Int
        var seconds: Double
        var sendsPerSecond: Double
        /// `push.send` call durations.
        var acceptedMs: LatencySummary
        /// From the phase's first send until the device had received every id.
        var allReceivedAfterSeconds: Double
    }

    /// A fixed-rate (open-loop) phase.
    struct RateFigures: Codable, Sendable {
        var offeredPerSecond: Int
        var sends: Int
        /// Sends divided by the time from the first scheduled send to the last actual one.
        var achievedPerSecond: Double
        /// Most a send started after its scheduled time (the client's own lag).
        var maxSchedulingLagMs: Double
        /// Scheduled send → `push.send` returned.
        var acceptedMs: LatencySummary
        /// Scheduled send → the id arrived on the device's event stream.
        var receivedMs: LatencySummary
        /// Scheduled send → the device had the payload from `store.get`: end to end.
        var fetchedMs: LatencySummary
    }

    private let backend: SecurePushBackend
    private let device: SecurePushDevice
    private let deviceID: String
    private let userID: String
    private let payloadBytes: Int
    private let drainTimeout: Duration
    private let timings = SendTimings()
    private let fetching = Atomic(false)
    private let sequence = Atomic(0)
    private let clock = ContinuousClock()

    init(
        backend: SecurePushBackend, device: SecurePushDevice, deviceID: String, userID: String, payloadBytes: Int,
        drainTimeout: Duration
    ) {
        self.backend = backend
        self.device = device
        self.deviceID = deviceID
        self.userID = userID
        self.payloadBytes = payloadBytes
        self.drainTimeout = drainTimeout
    }

    // MARK: - Device

    /// The device: for every id on its event stream, record it, fetch it (in phases that fetch) and acknowledge it.
    func consumeDeviceStream() async {
        await withDiscardingTaskGroup { group in
            do {
                for try await id in device.notifications(deviceId: deviceID) {
                    guard timings.received(id, at: clock.now) else { continue }
                    let fetch = fetching.load(ordering: .relaxed)
                    group.addTask { await self.handle(id, fetch: fetch) }
                }
            } catch {
                timings.failed("event stream ended: \(error)")
            }
        }
    }

    private func handle(_ id: String, fetch: Bool) async {
        do {
            if fetch {
                let notification = try await device.fetch(id)
                guard notification.notificationId == id, notification.payload?.utf8.count == payloadBytes else {
                    timings.failed("store.get \(id) returned another notification or payload")
                    return
                }
                timings.fetched(id, at: clock.now)
            }
            try await device.acknowledge(deviceId: deviceID, notificationId: id)
        } catch {
            timings.failed("device handling \(id): \(error)")
        }
    }

    /// Sends one probe and waits until the device has it: the event stream is connected.
    func waitForStream() async throws {
        let id = try await send(scheduledAt: clock.now)
        try await drain([id], fetch: false, timeout: .seconds(15))
    }

    // MARK: - Phases

    /// `count` sends with `concurrency` in flight.
    func closedLoop(count: Int, concurrency: Int, fetch: Bool) async throws -> SustainedFigures {
        fetching.store(fetch, ordering: .relaxed)
        let next = TicketCounter()
        let ids = Collected<String>()
        let start = clock.now
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<max(1, concurrency) {
                group.addTask {
                    while next.next() < count {
                        let id = try await self.send(scheduledAt: self.clock.now)
                        ids.append(id)
                    }
                }
            }
        }
        let elapsed = clock.now - start
        let sent = ids.all
        try await drain(sent, fetch: fetch, timeout: drainTimeout)
        let entries = timings.entries(for: sent)
        let lastReceived = entries.compactMap(\.receivedAt).max() ?? clock.now
        return SustainedFigures(
            sends: sent.count,
            concurrency: concurrency,
            seconds: elapsed.seconds,
            sendsPerSecond: Double(sent.count) / elapsed.seconds,
            acceptedMs: try summary(entries, \.acceptedAt, "accepted"),
            allReceivedAfterSeconds: (lastReceived - start).seconds
        )
    }

    /// `count` sends at `rate` per second, each started at its scheduled time whatever the others are doing.
    func openLoop(rate: Int, count: Int) async throws -> RateFigures {
        fetching.store(true, ordering: .relaxed)
        let interval = Duration.seconds(1) / rate
        let ids = Collected<String>()
        let start = clock.now + .milliseconds(20)
        var maxLag = Duration.zero
        var lastStart = start
        try await withThrowingDiscardingTaskGroup { group in
            for index in 0..<count {
                let scheduled = start + interval * index
                try await clock.sleep(until: scheduled, tolerance: .microseconds(100))
                lastStart = clock.now
                maxLag = max(maxLag, lastStart - scheduled)
                group.addTask {
                    let id = try await self.send(scheduledAt: scheduled)
                    ids.append(id)
                }
            }
        }
        let sent = ids.all
        try await drain(sent, fetch: true, timeout: drainTimeout)
        let entries = timings.entries(for: sent)
        return RateFigures(
            offeredPerSecond: rate,
            sends: sent.count,
            achievedPerSecond: Double(sent.count) / max((lastStart - start).seconds, interval.seconds),
            maxSchedulingLagMs: (maxLag.milliseconds * 100).rounded() / 100,
            acceptedMs: try summary(entries, \.acceptedAt, "accepted"),
            receivedMs: try summary(entries, \.receivedAt, "received"),
            fetchedMs: try summary(entries, \.fetchedAt, "fetched")
        )
    }

    // MARK: - Helpers

    /// One `push.send` of a fresh payload; records when it was scheduled and accepted.
    private func send(scheduledAt: ContinuousClock.Instant) async throws -> String {
        let number = sequence.add(1, ordering: .relaxed).newValue
        let prefix = "bench-\(number)-"
        let payload = prefix + String(repeating: "x", count: max(0, payloadBytes - prefix.utf8.count))
        let result = try await backend.send(.init(recipientId: userID, payload: payload))
        guard result.deliveries.count == 1, result.deliveries[0].deviceId == deviceID else {
            throw BenchmarkFailure("push.send targeted \(result.deliveries.count) devices, expected the one device")
        }
        timings.accepted(result.notificationId, sentAt: scheduledAt, at: clock.now)
        return result.notificationId
    }

    /// Waits until the device has received (and, when `fetch`, fetched) every one of `ids`.
    private func drain(_ ids: [String], fetch: Bool, timeout: Duration) async throws {
        let deadline = clock.now + timeout
        while true {
            if let failure = timings.failureMessages.first {
                throw BenchmarkFailure("the device failed: \(failure)")
            }
            let done = timings.progress(of: ids)
            if done.received == ids.count, !fetch || done.fetched == ids.count { return }
            guard clock.now < deadline else {
                throw BenchmarkFailure(
                    "after \(timeout) the device had received \(done.received) and fetched \(done.fetched) "
                        + "of \(ids.count) notifications")
            }
            try await clock.sleep(for: .milliseconds(5))
        }
    }

    private func summary(
        _ entries: [SendTimings.Entry], _ stage: KeyPath<SendTimings.Entry, ContinuousClock.Instant?>, _ name: String
    ) throws -> LatencySummary {
        let samples = entries.compactMap { entry in
            entry[keyPath: stage].flatMap { at in entry.sentAt.map { at - $0 } }
        }
        guard samples.count == entries.count, let summary = LatencySummary(samples) else {
            throw BenchmarkFailure("only \(samples.count) of \(entries.count) notifications have a '\(name)' time")
        }
        return summary
    }
}
