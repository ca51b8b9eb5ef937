import ArgumentParser
import Foundation
import Logging
import SecurePushClient
import SharedModels
import Synchronization

/// Benchmark 2, the send path: `push.send` to a user with one direct-channel device, measured by a client that
/// plays both the app backend and the device.
///
/// 1. Sustained: `--concurrency` sends in flight (closed loop) until `--sustained-sends` are accepted;
///    the device receives and acknowledges every id (it does not fetch in this phase).
/// 2. For each `--rate`: sends at that fixed offered rate (open loop) for `--rate-seconds`; the device receives,
///    fetches (`store.get`) and acknowledges every id. Latencies are measured from each send's *scheduled* time,
///    so a client that falls behind shows up as latency instead of hiding it (no coordinated omission).
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Benchmark 2: push.send throughput and end-to-end latency to a direct-channel device."
    )

    @OptionGroup var options: BenchmarkOptions

    @Option(help: "notification-store base URL (the device fetches from it)")
    var store: String

    @Option(name: .customLong("rate"), help: "an offered rate in sends per second (repeatable)")
    var rates: [Int] = [200, 1000]

    @Option(help: "how long each fixed-rate phase sends")
    var rateSeconds: Double = 10

    @Flag(help: "run the sustained phase only (no fixed-rate phases)")
    var sustainedOnly = false

    @Option(help: "sends in the sustained phase")
    var sustainedSends: Int = 20_000

    @Option(help: "sends in flight in the sustained phase")
    var concurrency: Int = 64

    @Option(help: "unrecorded warm-up sends before the first phase")
    var warmup: Int = 500

    @Option(help: "payload bytes per notification")
    var payloadBytes: Int = 256

    @Option(help: "seconds to wait after a phase for every id to reach (and be fetched by) the device")
    var drainTimeout: Double = 30

    func run() async throws {
        let logger = Logger.benchmark("securepush-bench.send")
        let endpoints = SecurePushEndpoints(auth: options.auth, store: store, dispatch: options.dispatch)
        let device = try SecurePushDevice(endpoints: endpoints, logger: logger)
        let backend = try options.makeBackend(logger: logger)
        let username = "bench-send-\(UUID().uuidString.prefix(8).lowercased())"
        let password = "bench-password-\(UUID().uuidString)"
        let userID = try await device.createAccount(username: username, password: password)
        try await device.signIn(username: username, password: password)
        let deviceID = try await device.register(device: .init(platform: .direct, name: "benchmark device"))

        let run = SendPathRun(
            backend: backend, device: device, deviceID: deviceID, userID: userID, payloadBytes: payloadBytes,
            drainTimeout: .seconds(drainTimeout))
        let consumer = Task { await run.consumeDeviceStream() }
        defer { consumer.cancel() }
        try await run.waitForStream()

        progress("send: warm-up, \(warmup) sends")
        _ = try await run.closedLoop(count: warmup, concurrency: concurrency, fetch: true)

        progress("send: sustained, \(sustainedSends) sends, \(concurrency) in flight")
        let sustained = try await run.closedLoop(count: sustainedSends, concurrency: concurrency, fetch: false)
        progress("send: sustained \(Int(sustained.sendsPerSecond)) sends/s")

        var fixed: [String: SendPathRun.RateFigures] = [:]
        for rate in sustainedOnly ? [] : rates {
            let count = max(1, Int(Double(rate) * rateSeconds))
            progress("send: \(rate)/s offered, \(count) sends")
            let figures = try await run.openLoop(rate: rate, count: count)
            progress(
                "send: \(rate)/s offered: end-to-end (fetched) p50 \(figures.fetchedMs.p50) ms, "
                    + "p99 \(figures.fetchedMs.p99) ms, max \(figures.fetchedMs.max) ms")
            fixed["rate\(rate)"] = figures
        }
        consumer.cancel()
        await device.shutdown()
        await backend.shutdown()
        try options.write(SendResult(sustained: sustained, rates: fixed, payloadBytes: payloadBytes))
    }
}

/// What `securepush-bench send` writes.
struct SendResult: Encodable {
    var sustained: SendPathRun.SustainedFigures
    var rates: [String: SendPathRun.RateFigures]
    var payloadBytes: Int
}
