import Crypto
import Foundation
import Logging
import Metrics
import PKCS11
import ServiceLifecycle
import Synchronization

/// A service's audit trail: ``record(_:)`` takes an event without waiting; the trail's writer (this service, run
/// with the application) pseudonymises what it took, chains it and commits it in one transaction every
/// ``AuditConfiguration/flushInterval`` (group commit), and signs the chain's head every
/// ``AuditConfiguration/checkpointEntries`` entries or ``AuditConfiguration/checkpointInterval``, writing the
/// checkpoint to the database and to ``AuditConfiguration/checkpointDirectory``.
///
/// Each running process writes its own chain, named by a replica id made at start, which begins with a genesis entry
/// (`audit.chain.started`) signed at once: replicas on one PostgreSQL database never contend for a chain's head, and
/// a restart starts a new chain rather than trusting the last one's tail. See docs/compliance.md.
public final class AuditTrail: Service, Sendable {
    /// Where the chain stands, touched only by the one flush running at a time.
    private struct Head: Sendable {
        var sequence: Int64 = 0
        var hash = ""
        var sinceCheckpoint = 0
        var checkpointed: Int64 = 0
        var lastCheckpoint = ContinuousClock.now
    }

    /// The service whose trail this is: `auth`, `notification-store` or `push-dispatch`.
    public let service: String
    /// This process's chain.
    public let chain: String
    private let repository: SQLAuditRepository
    /// The keys people's identifiers are pseudonymised with.
    public let keyring: any AuditKeyring
    private let fallbackKeyring = EphemeralAuditKeyring()
    private let signingKey: AuditSigningKey
    /// The token holding the checkpoint key, when it is in a PKCS#11 module (for health).
    public var hardwareToken: PKCS11Token? { signingKey.moduleToken }
    /// The health check of the checkpoint key, when it is in a PKCS#11 module.
    public var hardwareProbe: HardwareKeyProbe? { signingKey.moduleProbe }
    private let configuration: AuditConfiguration
    private let logger: Logger
    private let pending = Mutex<[AuditEvent]>([])
    private let head = Mutex(Head())
    /// Since when the keyring has been failing, if it is.
    private let keysFailingSince = Mutex<ContinuousClock.Instant?>(nil)
    /// Pseudonyms computed so far (touched only by the one flush running at a time).
    private let pseudonymCache = Mutex(AuditPseudonymCache())
    /// Set once graceful shutdown began: the last commit waits for no key (auth may be stopping too).
    private let stopping = Mutex(false)
    private let flushing = AsyncLock()
    private let entriesCounter: Counter
    private let droppedCounter: Counter
    private let checkpointCounter: Counter
    private let retentionMetrics: RetentionMetrics
    /// When the chain began: its genesis entry's time, before anything recorded in it.
    private let startedAt = Date()

    /// - Parameters:
    ///   - repository: the service's trail (its schema includes ``AuditSchema``); names the service in every entry.
    ///   - keyring: the keys people's identifiers are pseudonymised with.
    ///   - signingKey: signs checkpoints.
    ///   - configuration: checkpoint and flush cadence, the checkpoint directory.
    ///   - metrics: where `securepush_audit_*` are recorded.
    public init(
        repository: SQLAuditRepository, keyring: any AuditKeyring, signingKey: AuditSigningKey,
        configuration: AuditConfiguration, logger: Logger, metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.service = repository.service
        self.chain = Self.newChainID()
        self.repository = repository
        self.keyring = keyring
        self.signingKey = signingKey
        self.configuration = configuration
        self.logger = logger
        entriesCounter = Counter(label: "securepush_audit_entries_total", factory: metrics)
        droppedCounter = Counter(label: "securepush_audit_dropped_total", factory: metrics)
        checkpointCounter = Counter(label: "securepush_audit_checkpoints_total", factory: metrics)
        retentionMetrics = RetentionMetrics(factory: metrics)
    }

    /// `r` + 16 random hexadecimal digits.
    static func newChainID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "r" + String(generator.next() as UInt64, radix: 16).leftPadded(to: 16)
    }

    /// Takes `event` for the next commit, without waiting. When the database has been unable to take entries for so
    /// long that ``AuditConfiguration/maxPending`` are waiting, the event is dropped and counted.
    public func record(_ event: AuditEvent) {
        let accepted = pending.withLock { pending in
            guard pending.count < configuration.maxPending else { return false }
            pending.append(event)
            return true
        }
        if !accepted { droppedCounter.increment() }
    }

    /// Records `type` with `fields`, now.
    public func record(_ type: String, _ fields: AuditFields) {
        record(AuditEvent(type, fields))
    }

    /// Commits everything recorded so far (starting the chain first), and signs the head when a checkpoint is due.
    public func flush() async throws {
        try await flushing.withLock { try await self.commitPending() }
    }

    /// Commits everything recorded so far and signs the head, whatever the cadence says (at shutdown, in tests).
    public func checkpoint() async throws {
        try await flushing.withLock {
            try await self.commitPending()
            try await self.signHead()
        }
    }

    /// Flushes every ``AuditConfiguration/flushInterval`` until graceful shutdown, then commits and signs what is
    /// left.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var failures = 0
            var lastRetention: ContinuousClock.Instant?
            while !Task.isCancelled {
                do {
                    try await self.flush()
                    failures = 0
                    if let retention = self.configuration.retention,
                        lastRetention.map({ $0.duration(to: .now) >= self.configuration.retentionInterval }) ?? true
                    {
                        lastRetention = .now
                        try await self.applyRetention(before: Date().addingTimeInterval(-retention.timeInterval))
                    }
                } catch {
                    // Cut short by shutdown: what it held is committed by the last checkpoint below.
                    if Task.isCancelled { break }
                    failures += 1
                    self.logger.warning("audit.flush.failed", metadata: ["error": "\(error)"])
                }
                // After a failure (the database or auth unavailable), wait longer each time: 0.2 s doubling to 12.8 s.
                let delay = failures == 0 ? self.configuration.flushInterval : .milliseconds(100 << min(failures, 7))
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return
                }
            }
        }
        stopping.withLock { $0 = true }
        do {
            // Outside the cancellation that ended the loop: what was recorded is committed and signed.
            try await uncancelled { try await self.checkpoint() }
        } catch {
            logger.error("audit.final_checkpoint.failed", metadata: ["error": "\(error)"])
        }
    }

    /// The type of the entries that state a retention cut.
    public static let retentionCutType = "audit.retention.cut"

    /// Deletes every entry recorded before `cutoff` from every chain of the service (one replica at a time), and in
    /// the same transaction appends one signed `audit.retention.cut` entry per chain that now starts after its
    /// genesis (`{chain, throughSequence, throughHash, before}`), so that `audit verify` still passes; returns how
    /// many entries went.
    @discardableResult
    public func applyRetention(before cutoff: Date) async throws -> Int {
        try await flushing.withLock {
            try await self.commitPending()
            let state = self.head.withLock { $0 }
            let cutoffMS = cutoff.millisecondsSince1970
            let outcome = try await self.repository.database.exclusively("audit-retention") {
                transaction -> (Int, [AuditEntry], AuditCheckpoint?) in
                let (deleted, cuts) = try await self.repository.cut(before: cutoffMS, in: transaction)
                guard deleted > 0 else { return (0, [], nil) }
                var previous: (sequence: Int64, hash: String) = (state.sequence, state.hash)
                var entries: [AuditEntry] = []
                let recordedAt = Date().millisecondsSince1970
                var writer = AuditBodyWriter()
                // Cut entries name no person: the pseudonymizer is never asked.
                var pseudonyms = AuditPseudonymizer(
                    userKeys: [:], addressKey: Self.unusedKey, addressKeyTag: "unused", cache: AuditPseudonymCache())
                for cut in cuts {
                    let bytes = writer.body(
                        service: self.service, chain: self.chain, sequence: previous.sequence + 1, at: recordedAt,
                        type: Self.retentionCutType, previous: previous.hash,
                        fields: [
                            "chain": .text(cut.chain), "throughSequence": .integer(cut.throughSequence),
                            "throughHash": .text(cut.throughHash), "before": .integer(cutoffMS),
                        ], pseudonyms: &pseudonyms)
                    let entry = AuditEntry(
                        chain: self.chain, sequence: previous.sequence + 1, recordedAt: recordedAt,
                        type: Self.retentionCutType, bytes: bytes)
                    entries.append(entry)
                    previous = (entry.sequence, entry.hash)
                }
                let checkpoint = try self.signed(sequence: previous.sequence, hash: previous.hash)
                try await self.repository.append(entries, checkpoint: checkpoint, in: transaction)
                return (deleted, entries, checkpoint)
            }
            guard let (deleted, entries, checkpoint) = outcome, let checkpoint, let last = entries.last else {
                return 0
            }
            self.head.withLock { head in
                head.sequence = last.sequence
                head.hash = last.hash
                head.sinceCheckpoint = 0
                head.checkpointed = last.sequence
                head.lastCheckpoint = .now
            }
            self.entriesCounter.increment(by: entries.count)
            self.retentionMetrics.purged("audit", deleted)
            self.writeOutside(checkpoint)
            return deleted
        }
    }

    /// Called with `flushing` held.
    private func commitPending() async throws {
        var events = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        let state = head.withLock { $0 }
        if state.sequence == 0 {
            events.insert(AuditEvent("audit.chain.started", ["service": .text(service)], time: startedAt), at: 0)
        }
        guard !events.isEmpty else {
            if state.sinceCheckpoint > 0, state.lastCheckpoint.duration(to: .now) >= configuration.checkpointInterval {
                try await signHead()
            }
            return
        }
        do {
            let entries = try await chainEntries(for: events, after: state)
            let last = entries[entries.count - 1]
            var checkpoint: AuditCheckpoint?
            let since = state.sinceCheckpoint + entries.count
            if state.sequence == 0 || since >= configuration.checkpointEntries
                || state.lastCheckpoint.duration(to: .now) >= configuration.checkpointInterval
            {
                checkpoint = try signed(sequence: last.sequence, hash: last.hash)
            }
            try await repository.append(entries, checkpoint: checkpoint)
            head.withLock { head in
                head.sequence = last.sequence
                head.hash = last.hash
                head.sinceCheckpoint = checkpoint == nil ? since : 0
                if checkpoint != nil {
                    head.checkpointed = last.sequence
                    head.lastCheckpoint = .now
                }
            }
            entriesCounter.increment(by: entries.count)
            if let checkpoint { writeOutside(checkpoint) }
        } catch {
            // Back in front of anything recorded meanwhile; the genesis entry is made again next time.
            let recorded = state.sequence == 0 ? Array(events.dropFirst()) : events
            pending.withLock { pending in
                pending.insert(contentsOf: recorded.prefix(max(0, configuration.maxPending - pending.count)), at: 0)
            }
            throw error
        }
    }

    /// The entries for `events`, chained after `state`'s head.
    private func chainEntries(for events: [AuditEvent], after state: Head) async throws -> [AuditEntry] {
        var pseudonyms = try await pseudonymizer(for: events)
        defer {
            // Unless an erasure emptied it meanwhile: then what this batch computed is dropped with the rest.
            pseudonymCache.withLock { if $0.generation == pseudonyms.cache.generation { $0 = pseudonyms.cache } }
        }
        var previous = (sequence: state.sequence, hash: state.hash)
        var writer = AuditBodyWriter()
        var entries: [AuditEntry] = []
        entries.reserveCapacity(events.count)
        for event in events {
            let sequence = previous.sequence + 1
            let recordedAt = event.time.millisecondsSince1970
            let bytes = writer.body(
                service: service, chain: chain, sequence: sequence, at: recordedAt, type: event.type,
                previous: previous.hash, fields: event.fields, pseudonyms: &pseudonyms)
            let entry = AuditEntry(
                chain: chain, sequence: sequence, recordedAt: recordedAt, type: event.type, bytes: bytes)
            entries.append(entry)
            previous = (entry.sequence, entry.hash)
        }
        return entries
    }

    /// Forgets `userID`'s key and every pseudonym computed so far (an erasure): nothing more is written under it.
    public func forget(_ userID: String) {
        (keyring as? CachedAuditKeyring)?.forget(userID)
        pseudonymCache.withLock { $0.removeAll() }
    }

    /// Forgets the keys of the users `matches` picks, and every pseudonym computed so far.
    public func forget(where matches: @Sendable (String) -> Bool) {
        (keyring as? CachedAuditKeyring)?.forget(where: matches)
        pseudonymCache.withLock { $0.removeAll() }
    }

    /// The keys for `events`, asked for only when an event names a person or an address. When the keyring cannot
    /// answer (auth unreachable) the batch waits (the error is thrown, the entries kept) for up to
    /// ``AuditConfiguration/keyWait``; after that it is written under this process's own day key, so that entries
    /// are never lost for want of a key (they are then unlinkable across processes).
    private func pseudonymizer(for events: [AuditEvent]) async throws -> AuditPseudonymizer {
        var owners = Set<String>()
        for event in events {
            for field in event.fields.sorted { if let owner = field.value.owner { owners.insert(owner) } }
        }
        let day = AuditDay.of(Date())
        do {
            let userKeys = owners.isEmpty ? [:] : try await keyring.userKeys(owners)
            let needsDayKey = events.contains { event in
                event.fields.values.contains { value in
                    switch value {
                    case .address(let address): address != nil
                    case .user, .username, .device: value.owner.map { userKeys[$0] == nil } ?? true
                    default: false
                    }
                }
            }
            let addressKey = needsDayKey ? try await keyring.addressKey(day: day) : Self.unusedKey
            keysFailingSince.withLock { $0 = nil }
            return AuditPseudonymizer(
                userKeys: userKeys, addressKey: addressKey, addressKeyTag: needsDayKey ? day : "unused",
                cache: pseudonymCache.withLock { $0 })
        } catch {
            let since = keysFailingSince.withLock { since in
                if since == nil { since = .now }
                return since!
            }
            // A flush cut short by shutdown: the last checkpoint, outside the cancellation, commits these entries.
            if Task.isCancelled { throw error }
            let stopping = stopping.withLock { $0 }
            logger.log(level: stopping ? .debug : .warning, "audit.keys.unavailable", metadata: ["error": "\(error)"])
            guard stopping || since.duration(to: .now) >= configuration.keyWait else { throw error }
            return AuditPseudonymizer(
                userKeys: [:], addressKey: try await fallbackKeyring.addressKey(day: day),
                addressKeyTag: "fallback\u{0}" + day, cache: pseudonymCache.withLock { $0 })
        }
    }

    /// Stands in for the day key in a batch that names no address and no person without a key (never used).
    private static let unusedKey = SymmetricKey(size: .bits256)

    /// Signs the current head if anything after the last checkpoint is committed. Called with `flushing` held.
    private func signHead() async throws {
        let state = head.withLock { $0 }
        guard state.sequence > state.checkpointed else { return }
        let checkpoint = try signed(sequence: state.sequence, hash: state.hash)
        try await repository.insert(checkpoint)
        head.withLock { head in
            head.checkpointed = state.sequence
            head.sinceCheckpoint = 0
            head.lastCheckpoint = .now
        }
        writeOutside(checkpoint)
    }

    private func signed(sequence: Int64, hash: String) throws -> AuditCheckpoint {
        var checkpoint = AuditCheckpoint(
            service: service, chain: chain, sequence: sequence, hash: hash,
            signedAt: Date().millisecondsSince1970, keyID: "", signature: "")
        try signingKey.sign(&checkpoint)
        checkpointCounter.increment()
        return checkpoint
    }

    /// Appends `checkpoint` to its file in the checkpoint directory (flushed to disk); a failure is logged, not
    /// thrown: the database copy is already committed, and `audit verify` reports the file that lacks it.
    private func writeOutside(_ checkpoint: AuditCheckpoint) {
        guard let directory = configuration.checkpointDirectory else { return }
        do {
            try AuditCheckpointFiles(directory: directory).append(checkpoint)
        } catch {
            logger.error(
                "audit.checkpoint_file.failed", metadata: ["audit.directory": "\(directory)", "error": "\(error)"])
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
