import GRDB
import Synchronization

/// The writer of a SQLite database, one transaction at a time, with group commit: when transactions are queued behind
/// the one that just ran its statements, it leaves the database transaction open for them, and the last of the group
/// (or the ``maximumGroup``-th) commits for all. Each transaction's caller returns only once that commit succeeded,
/// so what a caller was told is committed is; a group's commit writes each changed page to the write-ahead log once
/// instead of once per transaction, and makes one set of WAL lock and write calls. Alone, a transaction is
/// `BEGIN IMMEDIATE … COMMIT` as before.
///
/// Inside a group each transaction but the first runs in a `SAVEPOINT`: when its body throws, only its statements are
/// rolled back and the others still commit. When an error makes SQLite roll back the whole database transaction
/// (`SQLITE_FULL`, `SQLITE_IOERR`…), every transaction of the group fails with it, as does each when the `COMMIT`
/// fails.
///
/// Work that must not run inside a transaction (a checkpoint) runs with ``withoutTransaction(turn:_:)``, which commits an open group
/// first. Not for PostgreSQL, whose server commits concurrent transactions itself.
final class SQLiteGroupCommitter: Sendable {
    /// How many transactions one commit covers at most, so that the first of a busy stream waits for a bounded number
    /// of others (each a few tens of microseconds of statements).
    static let maximumGroup = 32

    let writer: any DatabaseWriter
    private let lock = AsyncLock()
    /// Calls that have asked for the writer and not yet left it (the holder included).
    private let queued = Atomic<Int>(0)
    /// The group whose database transaction is open while nobody holds the lock (then a queued call is next).
    private let open = Mutex<SQLiteCommitGroup?>(nil)
    /// Commits made (groups committed), for tests and the benchmark's notes.
    private let commits = Atomic<Int>(0)

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Groups committed so far.
    var commitCount: Int { commits.load(ordering: .relaxed) }

    /// Calls waiting for the writer or holding it.
    var queuedCount: Int { queued.load(ordering: .relaxed) }

    /// Runs `body` as one transaction; returns once its group committed. `turn` (the pool's gauges) starts when it
    /// takes the writer and ends when it lets go of it (before the commit it waits for, when another transaction
    /// makes it).
    func transaction<T: Sendable>(
        turn: DatabasePoolTurn? = nil, _ body: @Sendable () async throws -> T
    ) async throws -> T {
        queued.add(1, ordering: .relaxed)
        let (result, group) = try await lock.withLock { () -> (Result<T, any Error>, SQLiteCommitGroup?) in
            defer {
                queued.subtract(1, ordering: .relaxed)
                turn?.end()
            }
            turn?.start()
            guard let group = takeOpenGroup(), groupTransactionIsOpen(group) else {
                return try await beginGroup(body)
            }
            do {
                try onWriter { db in try Self.control("SAVEPOINT securepush_member", db) }
            } catch {
                settle(group)
                throw error
            }
            group.members += 1
            let result: Result<T, any Error>
            do {
                let value = try await body()
                try onWriter { db in try Self.control("RELEASE securepush_member", db) }
                result = .success(value)
            } catch {
                result = .failure(error)
                guard rollBackMember() else {
                    // SQLite rolled the whole database transaction back: the group's earlier transactions with it.
                    group.finish(.failure(SQLiteGroupRollback(cause: error)))
                    return (result, nil)
                }
            }
            settle(group)
            return (result, group)
        }
        if case .success = result, let group { try await group.committed() }
        return try result.get()
    }

    /// The first transaction of a group: `BEGIN IMMEDIATE`, its body, then the group is settled. When its body throws,
    /// the database transaction is rolled back (no other transaction is in it yet).
    private func beginGroup<T: Sendable>(
        _ body: @Sendable () async throws -> T
    ) async throws -> (Result<T, any Error>, SQLiteCommitGroup?) {
        try onWriter { db in
            // A transaction left open by a rollback that failed would refuse every BEGIN after it.
            if db.isInsideTransaction { try db.rollback() }
            try Self.control("BEGIN IMMEDIATE TRANSACTION", db)
        }
        let group = SQLiteCommitGroup()
        group.members = 1
        do {
            let value = try await body()
            settle(group)
            return (.success(value), group)
        } catch {
            try? onWriter { db in if db.isInsideTransaction { try db.rollback() } }
            group.finish(.failure(error))
            return (.failure(error), nil)
        }
    }

    /// After a transaction of `group` ran: leaves the database transaction open for the next holder when calls are
    /// queued and the group has room (the next joins it, or ``withoutTransaction(turn:_:)`` commits it), else
    /// commits it now.
    private func settle(_ group: SQLiteCommitGroup) {
        guard groupTransactionIsOpen(group) else { return }
        if queued.load(ordering: .relaxed) > 1, group.members < Self.maximumGroup {
            open.withLock { $0 = group }
        } else {
            commit(group)
        }
    }

    /// Whether `group`'s database transaction is still open. A body that caught an error after which SQLite rolled the
    /// transaction back (`SQLITE_FULL`, `SQLITE_IOERR`…) and went on would otherwise leave a group with nothing behind
    /// it, and the next transaction's statements would commit on their own: the group fails instead.
    private func groupTransactionIsOpen(_ group: SQLiteCommitGroup) -> Bool {
        if (try? onWriter({ db in db.isInsideTransaction })) == true { return true }
        group.finish(.failure(SQLiteGroupRollback(cause: nil)))
        return false
    }

    /// The open group, which the caller (holding the lock) now owns.
    private func takeOpenGroup() -> SQLiteCommitGroup? {
        open.withLock { current in
            defer { current = nil }
            return current
        }
    }

    /// Runs `body` holding the writer with no transaction open: an open group is committed first.
    func withoutTransaction<T: Sendable>(
        turn: DatabasePoolTurn? = nil, _ body: @Sendable () async throws -> T
    ) async throws -> T {
        queued.add(1, ordering: .relaxed)
        return try await lock.withLock {
            defer {
                queued.subtract(1, ordering: .relaxed)
                turn?.end()
            }
            turn?.start()
            if let group = takeOpenGroup(), groupTransactionIsOpen(group) { commit(group) }
            return try await body()
        }
    }

    /// Runs one of the group's own statements (`BEGIN IMMEDIATE`, `SAVEPOINT`, `RELEASE`, `COMMIT`: what GRDB's
    /// `beginTransaction` and `commit` run) prepared once per connection, from GRDB's statement cache, rather than
    /// parsed and prepared again for every transaction (~2% of push-dispatch's CPU on the send path).
    private static func control(_ sql: String, _ db: Database) throws {
        try db.cachedStatement(sql: sql).execute()
    }

    /// Runs `body` on the writer connection synchronously: GRDB's writer queue runs it on the calling thread when it
    /// is idle, which it is while the lock is held. A transaction's statements take no thread hop each (an async
    /// access costs two): see [decision 8](docs/decisions/0008-sqlite-transactions-synchronous-statements.md).
    func onWriter<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.writeWithoutTransaction(body)
    }

    /// Commits the group's database transaction (rolls it back when the commit fails) and tells its transactions.
    private func commit(_ group: SQLiteCommitGroup) {
        do {
            try onWriter { db in try Self.control("COMMIT TRANSACTION", db) }
            commits.add(1, ordering: .relaxed)
            group.finish(.success(()))
        } catch {
            try? onWriter { db in if db.isInsideTransaction { try db.rollback() } }
            group.finish(.failure(error))
        }
    }

    /// Undoes the statements of a transaction that joined a group and whose body threw (its savepoint). Synchronous,
    /// so that a cancelled task still rolls back before the lock is released. `false` when the database transaction
    /// is gone (SQLite rolled it back on an error) or the savepoint could not be undone; then it is rolled back whole.
    private func rollBackMember() -> Bool {
        let undone =
            (try? onWriter { db -> Bool in
                guard db.isInsideTransaction else { return false }
                try db.execute(sql: "ROLLBACK TO securepush_member")
                try db.execute(sql: "RELEASE securepush_member")
                return true
            }) ?? false
        if !undone { try? onWriter { db in if db.isInsideTransaction { try db.rollback() } } }
        return undone
    }
}
