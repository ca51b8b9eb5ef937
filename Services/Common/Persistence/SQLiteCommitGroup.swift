import Synchronization

/// Transactions that share one SQLite `COMMIT` (group commit): each waits here, after its own statements ran, until
/// the group's commit has succeeded or failed. See ``SQLiteGroupCommitter``.
final class SQLiteCommitGroup: Sendable {
    private struct State {
        var outcome: Result<Void, any Error>?
        var waiters: [CheckedContinuation<Void, any Error>] = []
    }

    private let state = Mutex(State())

    /// How many transactions ran in the group so far. Read and written only by the holder of the writer's lock.
    nonisolated(unsafe) var members = 0

    /// Records the group's outcome and wakes every transaction waiting for it. The first outcome stands.
    func finish(_ outcome: Result<Void, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }

    /// Returns once the group has committed; throws what made it fail. Not cancellable: what a transaction wrote is
    /// committed or not whether or not its caller still waits, and the caller must learn which.
    func committed() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Result<Void, any Error>? in
                if state.outcome == nil { state.waiters.append(waiter) }
                return state.outcome
            }
            if let outcome { waiter.resume(with: outcome) }
        }
    }
}
