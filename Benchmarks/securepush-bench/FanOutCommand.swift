import APNsMock
import ArgumentParser
import Foundation
import Logging
import SecurePushClient
import SharedModels
import TestSupport

/// Benchmark 3, fan-out into the APNs mock: one `push.send` to a user with `--devices` APNs devices, then
/// `--users` sends to as many users with one APNs device each. push-dispatch delivers over its one HTTP/2 TLS
/// connection to the mock, which checks every request as APNs does (provider token, topic, push type, …).
///
/// The handshake with `bench.py`, which owns push-dispatch:
/// 1. this command seeds the `--users` devices into push-dispatch's SQLite database (`--dispatch-data-dir`),
///    through push-dispatch's own repository, before push-dispatch starts, and their accounts into auth's
///    (`--auth-data-dir`) (registering them over RPC would need 10,000 sign-ups, i.e. minutes of bcrypt; account and
///    device registration are not what this measures);
/// 2. starts the APNs mock and writes `--mock-file` (JSON: the mock's URL, CA file, provider key file, key id,
///    team id and topic) for push-dispatch's `SECUREPUSH_APNS_*` settings;
/// 3. waits for push-dispatch to become healthy, then runs both scenarios.
struct FanOutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Benchmark 3: fan-out into the APNs mock (one user's many devices; many users)."
    )

    @OptionGroup var options: BenchmarkOptions

    @Option(help: "APNs devices of the one user")
    var devices: Int = 1_000

    @Option(help: "users (one APNs device each) for the many-users scenario")
    var users: Int = 10_000

    @Option(help: "push.send calls in flight in the many-users scenario")
    var concurrency: Int = 64

    @Option(help: "push-dispatch's data directory (dispatch.sqlite), seeded before push-dispatch starts")
    var dispatchDataDir: String

    @Option(help: "auth's data directory (auth.sqlite): the seeded users are created there too")
    var authDataDir: String

    @Option(help: "recipients per push.send in the one-call-to-many scenario (0: skip it)")
    var recipientsPerCall: Int = 1_000

    @Option(help: "a file bench.py writes push-dispatch's pid to once it started (for the services' CPU per scenario)")
    var dispatchPidFile: String?

    @Option(help: "the pids of auth and notification-store, for their CPU per scenario")
    var servicePid: [Int32] = []

    @Option(help: "where to write the mock's settings for push-dispatch")
    var mockFile: String

    @Option(help: "seconds to wait for push-dispatch to become healthy, and for each scenario to drain")
    var timeout: Double = 120

    func run() async throws {
        let logger = Logger.benchmark("securepush-bench.fanout")
        progress("fanout: seeding \(users) users' devices into \(dispatchDataDir)")
        let seeded = try await DeviceSeeder.seed(
            users: users, dataDirectory: dispatchDataDir, authDataDirectory: authDataDir)
        let topic = "com.example.securepush.bench"
        try await withAPNsMock(topic: topic) { mock in
            try MockSettings(mock: mock).write(to: mockFile)
            progress("fanout: APNs mock on \(mock.baseURL); waiting for push-dispatch")
            try await waitUntilHealthy(logger: logger)
            let run = try FanOutRun(mock: mock, options: options, logger: logger, timeout: .seconds(timeout))
            let oneUser: FanOutRun.OneUserFigures
            let manyUsers: FanOutRun.ManyUsersFigures
            var oneCallToMany: FanOutRun.OneCallToManyFigures?
            do {
                progress("fanout: one user with \(devices) devices")
                oneUser = try await run.oneUser(devices: devices)
                progress(
                    "fanout: one user: \(Int(oneUser.deliveriesPerSecond)) deliveries/s, drained in \(oneUser.drainSeconds) s"
                )

                progress("fanout: \(seeded.count) users, one send each, \(concurrency) sends in flight")
                manyUsers = try await run.manyUsers(seeded, concurrency: concurrency)
                progress(
                    "fanout: many users: \(Int(manyUsers.deliveriesPerSecond)) deliveries/s, \(Int(manyUsers.sendsPerSecond)) sends/s"
                )
                if recipientsPerCall > 0 {
                    progress("fanout: \(seeded.count) users again, \(recipientsPerCall) recipients per push.send")
                    let figures = try await run.oneCallToMany(
                        seeded, perCall: recipientsPerCall, pids: try servicePids())
                    progress(
                        "fanout: one call to many: \(Int(figures.deliveriesPerSecond)) deliveries/s, "
                            + "\(figures.servicesCPUMicrosecondsPerRecipient.map { "\($0)" } ?? "?") us of CPU per recipient"
                    )
                    oneCallToMany = figures
                }
            } catch {
                await run.shutdown()
                throw error
            }
            await run.shutdown()

            let rejected = mock.state.requests.filter { $0.answer.status != 200 }
            guard rejected.isEmpty else {
                throw BenchmarkFailure(
                    "the APNs mock refused \(rejected.count) requests, first: \(rejected[0].answer.status) "
                        + "\(rejected[0].answer.reason ?? "")")
            }
            try options.write(
                FanOutResult(
                    oneUser: oneUser, manyUsers: manyUsers, oneCallToMany: oneCallToMany,
                    apnsConnections: mock.connections.count))
        }
    }

    /// The services' pids by name: auth and notification-store as given, push-dispatch from its pid file.
    private func servicePids() throws -> [String: Int32] {
        var pids: [String: Int32] = [:]
        for (name, pid) in zip(["auth", "store"], servicePid) { pids[name] = pid }
        if let dispatchPidFile {
            guard
                let text = try? String(contentsOfFile: dispatchPidFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw BenchmarkFailure("no pid in \(dispatchPidFile)") }
            pids["dispatch"] = pid
        }
        return pids
    }

    private func waitUntilHealthy(logger: Logger) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(timeout)
        while clock.now < deadline {
            if let health = try? await ServiceHealthCheck.check(baseURL: options.dispatch, caFile: nil, logger: logger),
                health.isReady
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchmarkFailure("push-dispatch at \(options.dispatch) did not become healthy within \(timeout) s")
    }
}

/// What `securepush-bench fanout` writes.
struct FanOutResult: Encodable {
    var oneUser: FanOutRun.OneUserFigures
    var manyUsers: FanOutRun.ManyUsersFigures
    /// The same users reached through `push.send` with `recipientIds` (absent when skipped).
    var oneCallToMany: FanOutRun.OneCallToManyFigures?
    /// Connections push-dispatch opened to the mock over the whole run.
    var apnsConnections: Int
}

/// The mock's settings, as push-dispatch's `SECUREPUSH_APNS_*` variables want them.
struct MockSettings: Encodable {
    var url: String
    var caFile: String
    var keyFile: String
    var keyId: String
    var teamId: String
    var topic: String

    init(mock: APNsMock) throws {
        keyFile = mock.certificates.directory + "/apns-key.p8"
        try mock.key.p8.write(toFile: keyFile, atomically: true, encoding: .utf8)
        url = mock.baseURL
        caFile = mock.certificates.caCertificatePath
        keyId = mock.key.keyID
        teamId = mock.key.teamID
        topic = mock.topic
    }

    func write(to path: String) throws {
        let data = try JSONEncoder().encode(self)
        let temporary = path + ".tmp"
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else { throw BenchmarkFailure("cannot write \(path)") }
    }
}
