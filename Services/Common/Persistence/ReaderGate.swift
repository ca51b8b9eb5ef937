import Synchronization

/// Counts the reads that hold or wait for one of a SQLite pool's reader connections, so that a read on the calling
/// thread is only started when a reader is free and never waits for one.
///
/// Why it exists: GRDB's async read holds its reader until its task resumes on Swift's cooperative pool. If the
/// pool's threads (two on a two-core machine) were blocked in synchronous reads waiting for a reader, no task could
/// resume to give one back, and the service would hang: every read, `/health` and graceful shutdown with it. That
/// happened with 10,000 direct-channel streams opening at once. Every read of the pool is counted here from before
/// it asks GRDB for a reader until after GRDB has it back, so the count is never below the readers GRDB has out;
/// ``tryEnter()`` admits a read on the calling thread only while the count is below the pool's size, when at least
/// one reader is idle.
final class ReaderGate: Sendable {
    /// The pool's reader connections (GRDB's `maximumReaderCount`).
    let capacity: Int
    private let taken = Mutex(0)

    /// - Parameter capacity: how many reader connections the pool has.
    init(capacity: Int) {
        precondition(capacity > 0, "a reader pool has at least one connection")
        self.capacity = capacity
    }

    /// Counts a read that may wait for a reader (an async read: GRDB queues it when all are busy).
    func enter() {
        taken.withLock { $0 += 1 }
    }

    /// Counts a read that must not wait: `true` when a reader is idle now (the read then calls ``leave()``), `false`
    /// when every reader may be busy, and nothing is counted.
    func tryEnter() -> Bool {
        taken.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
    }

    /// Ends a read counted by ``enter()`` or a successful ``tryEnter()``, once GRDB has its reader back.
    func leave() {
        taken.withLock { $0 -= 1 }
    }

    /// The reads counted now (tests).
    var count: Int { taken.withLock { $0 } }
}
