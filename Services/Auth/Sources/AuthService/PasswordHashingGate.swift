import Logging
import ServiceCore

/// Bounds the password work (bcrypt) of the whole service: `maxConcurrent` at once, `maxQueued` waiting, at most
/// `maxPerAddress` running or waiting for one client address (IPv6: one /64); anything more gets `-32029` at once.
///
/// bcrypt takes 60–250 ms of a core; without a bound, a flood of sign-ins (or of 100-call batches) would queue
/// minutes of work in front of everyone else's sign-in. The per-address share keeps one address from filling the
/// queue.
public actor PasswordHashingGate {
    /// Hashes running at once (the bcrypt thread pool has one thread per core).
    public nonisolated let maxConcurrent: Int
    /// Hashes waiting for a thread before further ones are refused.
    public nonisolated let maxQueued: Int
    /// Hashes one address may have running or waiting.
    public nonisolated let maxPerAddress: Int
    /// How many hashes were let through (tests and diagnostics).
    public private(set) var admitted = 0
    /// How many were refused.
    public private(set) var refused = 0
    /// How many finished.
    public private(set) var finished = 0

    private let logger: Logger
    private let metrics: AuthMetrics
    private var isSaturated = false
    private var running = 0 {
        didSet { metrics.hashesRunning.set(running) }
    }
    private var waiting: [CheckedContinuation<Void, Never>] = [] {
        didSet { metrics.hashesQueued.set(waiting.count) }
    }
    private var heldByAddress: [String: Int] = [:]

    /// - Parameter metrics: shows the hashes running and waiting.
    public init(
        maxConcurrent: Int, maxQueued: Int, maxPerAddress: Int, logger: Logger, metrics: AuthMetrics = .disabled
    ) {
        self.logger = logger
        self.metrics = metrics
        self.maxConcurrent = max(1, maxConcurrent)
        self.maxQueued = max(0, maxQueued)
        self.maxPerAddress = max(1, maxPerAddress)
    }

    /// Runs `work` once a slot is free; throws `AuthError.hashingBusy` (`-32029`) without waiting when none can be had.
    public nonisolated func run<T: Sendable>(for address: String?, _ work: @Sendable () async throws -> T)
        async throws -> T
    {
        let key = SignInLimiter.label(address)
        try await acquire(key)
        do {
            let result = try await work()
            await release(key)
            return result
        } catch {
            await release(key)
            throw error
        }
    }

    private func acquire(_ key: String) async throws(AuthError) {
        let held = heldByAddress[key, default: 0]
        guard held < maxPerAddress, running < maxConcurrent || waiting.count < maxQueued else {
            refused += 1
            if !isSaturated, held < maxPerAddress {
                // Once per episode, not once per refusal: a flood must not flood the log too.
                isSaturated = true
                logger.security(
                    .init("auth.hashing.saturated"),
                    metadata: ["auth.hashing_running": "\(running)", "auth.hashing_queued": "\(waiting.count)"])
            }
            throw AuthError.hashingBusy
        }
        isSaturated = false
        heldByAddress[key] = held + 1
        admitted += 1
        if running < maxConcurrent {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release(_ key: String) {
        finished += 1
        let held = heldByAddress[key, default: 1] - 1
        heldByAddress[key] = held > 0 ? held : nil
        if waiting.isEmpty {
            running -= 1
        } else {
            // The slot passes straight to the oldest waiter.
            waiting.removeFirst().resume()
        }
    }
}
