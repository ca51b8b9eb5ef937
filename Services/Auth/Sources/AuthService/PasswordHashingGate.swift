import Logging
import ServiceCore

/// Bounds the password work (bcrypt) of the whole service and shares it fairly: `maxConcurrent` at once, `maxQueued`
/// waiting, at most `maxPerAddress` running or waiting for one client address (IPv6: one /64).
///
/// bcrypt takes 60–250 ms of a core; without a bound, a flood of sign-ins (or of 100-call batches) would queue
/// minutes of work in front of everyone else's sign-in. Waiting checks are queued per address, and a freed slot goes
/// to the address served least recently, so a newcomer waits for at most the `maxConcurrent` checks already running,
/// however many addresses flood. When the queue is full, a check from an address served less recently than a waiting
/// one takes the place of the latest waiter of the address served most recently (that one gets `-32029`): the flood
/// is refused, not the newcomer.
public actor PasswordHashingGate {
    /// Hashes running at once (the bcrypt thread pool has one thread per core).
    public nonisolated let maxConcurrent: Int
    /// Hashes waiting for a thread before further ones are refused.
    public nonisolated let maxQueued: Int
    /// Hashes one address may have running or waiting.
    public nonisolated let maxPerAddress: Int
    /// How many hashes were let through (tests and diagnostics).
    public private(set) var admitted = 0
    /// Checks waiting for a slot now.
    public var queued: Int { waitingCount }
    /// How many were refused (at once, or displaced from the queue by a newcomer).
    public private(set) var refused = 0
    /// How many finished.
    public private(set) var finished = 0
    /// Per address, how many checks started running between its last granted check's queueing and its start: the
    /// fairness bound (tests and diagnostics).
    public private(set) var startedAheadOfGrant: [String: Int] = [:]
    /// Per address with checks waiting, how many checks started since its oldest waiting one was queued.
    private var startedAhead: [String: Int] = [:]

    private let logger: Logger
    private let metrics: AuthMetrics
    private var isSaturated = false
    private var running = 0 {
        didSet { metrics.hashesRunning.set(running) }
    }
    /// Waiting checks per address, oldest first; `true` resumes one into a slot, `false` refuses it.
    private var waiting: [String: [CheckedContinuation<Bool, Never>]] = [:]
    private var waitingCount = 0 {
        didSet { metrics.hashesQueued.set(waitingCount) }
    }
    private var heldByAddress: [String: Int] = [:]
    /// When each address holding a check was last given a slot (a counter, not a clock); absent: never, first.
    private var lastServed: [String: UInt64] = [:]
    private var serveClock: UInt64 = 0

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

    /// Runs `work` once a slot is free; throws `AuthError.hashingBusy` (`-32029`) when none can be had.
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
        guard held < maxPerAddress else { throw refuse(logging: false) }
        if running < maxConcurrent {
            admit(key, held: held)
            running += 1
            serve(key)
            return
        }
        if waitingCount >= maxQueued {
            // Full: a check from an address served less recently than some waiting address takes the place of that
            // address's latest waiter (which gets -32029), so the flood is refused, not the newcomer.
            let mine = lastServed[key] ?? 0
            guard
                let (crowded, queue) = waiting.max(by: { lastServed[$0.key] ?? 0 < lastServed[$1.key] ?? 0 }),
                lastServed[crowded] ?? 0 > mine, crowded != key
            else { throw refuse(logging: true) }
            var shortened = queue
            let displaced = shortened.removeLast()
            waiting[crowded] = shortened.isEmpty ? nil : shortened
            if shortened.isEmpty { startedAhead[crowded] = nil }
            waitingCount -= 1
            dropHold(crowded)
            refused += 1
            displaced.resume(returning: false)
        }
        admit(key, held: held)
        if startedAhead[key] == nil { startedAhead[key] = 0 }
        waitingCount += 1
        let granted = await withCheckedContinuation { waiting[key, default: []].append($0) }
        guard granted else { throw AuthError.hashingBusy }
    }

    private func admit(_ key: String, held: Int) {
        isSaturated = false
        heldByAddress[key] = held + 1
        admitted += 1
    }

    private func refuse(logging: Bool) -> AuthError {
        refused += 1
        if logging, !isSaturated {
            // Once per episode, not once per refusal: a flood must not flood the log too.
            isSaturated = true
            logger.security(
                .init("auth.hashing.saturated"),
                metadata: ["auth.hashing_running": "\(running)", "auth.hashing_queued": "\(waitingCount)"])
        }
        return AuthError.hashingBusy
    }

    private func serve(_ key: String) {
        serveClock += 1
        lastServed[key] = serveClock
        if lastServed.count > 4_096 {
            // Bounded memory: forget addresses holding nothing (they rank as newcomers again).
            lastServed = lastServed.filter { heldByAddress[$0.key] != nil }
        }
        for address in startedAhead.keys where address != key { startedAhead[address]! += 1 }
    }

    private func dropHold(_ key: String) {
        let held = heldByAddress[key, default: 1] - 1
        heldByAddress[key] = held > 0 ? held : nil
    }

    private func release(_ key: String) {
        finished += 1
        dropHold(key)
        // The slot passes straight to the waiting address served least recently (never served: first).
        guard
            let next = waiting.keys.min(by: { lastServed[$0] ?? 0 < lastServed[$1] ?? 0 }),
            var queue = waiting[next]
        else {
            running -= 1
            return
        }
        let waiter = queue.removeFirst()
        waiting[next] = queue.isEmpty ? nil : queue
        waitingCount -= 1
        startedAheadOfGrant[next] = startedAhead[next] ?? 0
        startedAhead[next] = queue.isEmpty ? nil : 0
        serve(next)
        waiter.resume(returning: true)
    }
}
