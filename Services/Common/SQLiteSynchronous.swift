/// When an embedded SQLite database's commits reach the disk (`SECUREPUSH_SQLITE_SYNCHRONOUS`).
///
/// The databases run in WAL mode, where both settings survive a crash of the service itself (what is committed is
/// in the operating system's hands). They differ on a crash of the machine or a power cut.
public enum SQLiteSynchronous: String, Sendable, CaseIterable {
    /// The default (and GRDB's choice for WAL mode, SQLite's recommendation): commits are flushed to the disk at
    /// checkpoints, so the last commits before a power cut or kernel crash can be lost — never corrupted.
    case normal
    /// Every commit is flushed to the disk (`fsync`) before the call that made it returns, so an accepted
    /// `push.send` survives a power cut too; costs one flush per write transaction (about 0.2 ms on the benchmark
    /// machine), and those flushes are serialised by SQLite's single writer.
    case full
}

extension ServiceEnvironment {
    /// `SECUREPUSH_SQLITE_SYNCHRONOUS`: `normal` (default) or `full`.
    public func sqliteSynchronous() throws -> SQLiteSynchronous {
        try choice(SettingCatalog.sqliteSynchronous, as: SQLiteSynchronous.self)
    }
}
