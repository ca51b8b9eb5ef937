import Synchronization

/// When each notification of a send phase reached each stage, on one monotonic clock.
///
/// Sends and device events race (the id can reach the device before `push.send` returns), so every stage is
/// recorded by notification id on its own and joined when the phase is over.
final class SendTimings: Sendable {
    /// One notification's stages.
    struct Entry: Sendable {
        var sentAt: ContinuousClock.Instant?
        var acceptedAt: ContinuousClock.Instant?
        var receivedAt: ContinuousClock.Instant?
        var fetchedAt: ContinuousClock.Instant?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let failures = Mutex<[String]>([])

    func accepted(_ id: String, sentAt: ContinuousClock.Instant, at instant: ContinuousClock.Instant) {
        entries.withLock {
            $0[id, default: Entry()].sentAt = sentAt
            $0[id, default: Entry()].acceptedAt = instant
        }
    }

    /// Records the device receiving `id`; returns `false` when it had already (a redelivery).
    func received(_ id: String, at instant: ContinuousClock.Instant) -> Bool {
        entries.withLock {
            guard $0[id]?.receivedAt == nil else { return false }
            $0[id, default: Entry()].receivedAt = instant
            return true
        }
    }

    func fetched(_ id: String, at instant: ContinuousClock.Instant) {
        entries.withLock { $0[id, default: Entry()].fetchedAt = instant }
    }

    func failed(_ what: String) {
        failures.withLock { $0.append(what) }
    }

    /// How many of `ids` the device has received and fetched.
    func progress(of ids: [String]) -> (received: Int, fetched: Int) {
        entries.withLock { entries in
            var received = 0
            var fetched = 0
            for id in ids {
                if entries[id]?.receivedAt != nil { received += 1 }
                if entries[id]?.fetchedAt != nil { fetched += 1 }
            }
            return (received, fetched)
        }
    }

    /// The recorded stages of `ids`.
    func entries(for ids: [String]) -> [Entry] {
        entries.withLock { entries in ids.compactMap { entries[$0] } }
    }

    var failureMessages: [String] { failures.withLock { $0 } }
}
