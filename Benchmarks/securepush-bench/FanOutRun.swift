import APNsMock
import Foundation
import Logging
import SecurePushClient
import SharedModels
import Synchronization

/// The two fan-out scenarios against a running push-dispatch and the in-process APNs mock.
final class FanOutRun: Sendable {
    /// One send to one user's many devices.
    struct OneUserFigures: Codable, Sendable {
        var devices: Int
        var deliveries: Int
        /// `push.send` call duration (it records one delivery job per device).
        var sendMs: Double
        /// Deliveries divided by the time from the send to the last delivery reaching the mock.
        var deliveriesPerSecond: Double
        /// From the send to the last delivery reaching the mock.
        var drainSeconds: Double
    }

    /// One send to each of many users with one device each.
    struct ManyUsersFigures: Codable, Sendable {
        var users: Int
        var sends: Int
        var concurrency: Int
        var sendsPerSecond: Double
        /// Deliveries divided by the time from the first send to the last delivery reaching the mock.
        var deliveriesPerSecond: Double
        /// From the first send to the last delivery reaching the mock.
        var totalSeconds: Double
        /// From the last accepted send to the last delivery reaching the mock.
        var drainSeconds: Double
    }

    private let mock: APNsMock
    private let backend: SecurePushBackend
    private let options: BenchmarkOptions
    private let logger: Logger
    private let timeout: Duration

    init(mock: APNsMock, options: BenchmarkOptions, logger: Logger, timeout: Duration) throws {
        self.mock = mock
        self.options = options
        self.logger = logger
        self.timeout = timeout
        backend = try options.makeBackend(logger: logger)
    }

    /// Closes the backend's connections.
    func shutdown() async {
        await backend.shutdown()
    }

    func oneUser(devices count: Int) async throws -> OneUserFigures {
        let endpoints = SecurePushEndpoints(auth: options.auth, store: options.auth, dispatch: options.dispatch)
        let device = try SecurePushDevice(endpoints: endpoints, logger: logger)
        let username = "bench-fanout-\(UUID().uuidString.prefix(8).lowercased())"
        let password = "bench-password-\(UUID().uuidString)"
        let userID = try await device.createAccount(username: username, password: password)
        // push.send refuses recipients auth does not know: the warm-up goes to a real user without devices.
        let nobodyID = try await device.createAccount(username: username + "-nobody", password: password)
        try await device.signIn(username: username, password: password)
        // Registration is not measured; 16 in flight keeps it short.
        let next = TicketCounter()
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<16 {
                group.addTask {
                    while case let index = next.next(), index < count {
                        let token = DeviceSeeder.apnsToken(seed: 1 << 40 + UInt64(index))
                        _ = try await device.register(device: .init(platform: .apns, token: token))
                    }
                }
            }
        }
        await device.shutdown()
        // Not timed: the backend's first call takes a client token (bcrypt on auth) and opens its connection, and
        // push-dispatch's first store.put takes its own; a user without devices gets no deliveries.
        let warmUp = try await backend.send(.init(recipientId: nobodyID, payload: "warm-up"))
        guard warmUp.deliveries.isEmpty else { throw BenchmarkFailure("the warm-up send found devices") }

        let before = mock.state.successes.count
        let sentAt = Date()
        let result = try await backend.send(.init(recipientId: userID, payload: "fan-out to every device"))
        let sendDuration = Date().timeIntervalSince(sentAt)
        guard result.deliveries.count == count else {
            throw BenchmarkFailure("push.send targeted \(result.deliveries.count) devices, expected \(count)")
        }
        let last = try await waitForDeliveries(before + count)
        let drain = last.timeIntervalSince(sentAt)
        return OneUserFigures(
            devices: count, deliveries: count, sendMs: (sendDuration * 100_000).rounded() / 100,
            deliveriesPerSecond: Double(count) / drain, drainSeconds: (drain * 1000).rounded() / 1000)
    }

    func manyUsers(_ users: [DeviceSeeder.SeededUser], concurrency: Int) async throws -> ManyUsersFigures {
        let before = mock.state.successes.count
        let next = TicketCounter()
        let backend = backend
        let firstSend = Date()
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<max(1, concurrency) {
                group.addTask {
                    while case let index = next.next(), index < users.count {
                        let result = try await backend.send(
                            .init(recipientId: users[index].userID, payload: "fan-out \(index)"))
                        guard result.deliveries.count == 1 else {
                            throw BenchmarkFailure(
                                "push.send to \(users[index].userID) targeted \(result.deliveries.count) devices")
                        }
                    }
                }
            }
        }
        let lastSend = Date()
        let last = try await waitForDeliveries(before + users.count)
        let total = last.timeIntervalSince(firstSend)
        return ManyUsersFigures(
            users: users.count, sends: users.count, concurrency: concurrency,
            sendsPerSecond: Double(users.count) / lastSend.timeIntervalSince(firstSend),
            deliveriesPerSecond: Double(users.count) / total,
            totalSeconds: (total * 1000).rounded() / 1000,
            drainSeconds: (max(0, last.timeIntervalSince(lastSend)) * 1000).rounded() / 1000)
    }

    /// What one `push.send` with `recipientIds` per `perCall` users costs (issue 29).
    struct OneCallToManyFigures: Codable, Sendable {
        var recipients: Int
        var recipientsPerCall: Int
        var calls: Int
        /// Each call's time until push-dispatch answered, in milliseconds.
        var callMs: LatencySummary?
        /// Deliveries the mock accepted per second, from the first call to the last delivery.
        var deliveriesPerSecond: Double
        var totalSeconds: Double
        /// The services' CPU over the scenario, per recipient (`nil` when their processes could not be read).
        var servicesCPUMicrosecondsPerRecipient: Double?
        var cpuMicrosecondsPerRecipientByService: [String: Double]
    }

    /// `users` reached through `push.send` calls with `recipientIds` of `perCall` users each, one call at a time;
    /// `pids` name the services whose CPU is counted.
    func oneCallToMany(_ users: [DeviceSeeder.SeededUser], perCall: Int, pids: [String: Int32]) async throws
        -> OneCallToManyFigures
    {
        let before = mock.state.successes.count
        let cpuBefore = pids.mapValues { ProcessCPU.seconds(pid: $0) }
        var callSeconds: [Double] = []
        let firstSend = Date()
        for start in stride(from: 0, to: users.count, by: perCall) {
            let batch = users[start..<min(start + perCall, users.count)].map(\.userID)
            let sentAt = Date()
            let result = try await backend.send(
                Push.SendToMany.Params(recipientIds: batch, payload: "statement \(start / perCall)"))
            callSeconds.append(Date().timeIntervalSince(sentAt))
            guard result.notifications.count == batch.count, result.unknownRecipientIds.isEmpty else {
                throw BenchmarkFailure(
                    "push.send to \(batch.count) answered \(result.notifications.count) notifications, "
                        + "\(result.unknownRecipientIds.count) unknown")
            }
        }
        let last = try await waitForDeliveries(before + users.count)
        let total = last.timeIntervalSince(firstSend)
        var byService: [String: Double] = [:]
        for (name, pid) in pids {
            guard let start = cpuBefore[name] ?? nil, let end = ProcessCPU.seconds(pid: pid) else { continue }
            byService[name] = ((end - start) / Double(users.count) * 1e7).rounded() / 10
        }
        return OneCallToManyFigures(
            recipients: users.count, recipientsPerCall: perCall, calls: callSeconds.count,
            callMs: LatencySummary(callSeconds.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) }),
            deliveriesPerSecond: (Double(users.count) / total).rounded(),
            totalSeconds: (total * 1000).rounded() / 1000,
            servicesCPUMicrosecondsPerRecipient: byService.count == pids.count && !pids.isEmpty
                ? (byService.values.reduce(0, +) * 10).rounded() / 10 : nil,
            cpuMicrosecondsPerRecipientByService: byService)
    }

    /// Waits until the mock has accepted `target` deliveries in all; returns when the last of them arrived.
    private func waitForDeliveries(_ target: Int) async throws -> Date {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let (count, lastAt) = mock.state.successes
            if count >= target, let lastAt { return lastAt }
            guard clock.now < deadline else {
                throw BenchmarkFailure("after \(timeout) the APNs mock had \(count) of \(target) deliveries")
            }
            try await clock.sleep(for: .milliseconds(2))
        }
    }
}
