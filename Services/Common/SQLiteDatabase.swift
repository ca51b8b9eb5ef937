import Foundation
import GRDB

/// Opens the SQLite databases services keep their state in.
public enum SQLiteDatabase {
    /// Opens (creating when needed) a WAL-mode database at `path` and applies `migrator`.
    /// `nil` opens a private in-memory database (tests).
    /// - Parameter synchronous: when commits reach the disk (`SECUREPUSH_SQLITE_SYNCHRONOUS`); see ``SQLiteSynchronous``.
    public static func open(
        path: String?, migrator: DatabaseMigrator, synchronous: SQLiteSynchronous = .normal
    ) throws -> any DatabaseWriter {
        let writer: any DatabaseWriter
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        // `SQLiteSQLDatabase.transaction` keeps a transaction open across its body's awaits (under its own lock).
        configuration.allowsUnsafeTransactions = true
        // Deleted content (a read-once payload, an expired notification, a spent token) is overwritten with zeros
        // instead of lingering in free pages; set on every connection, as SQLite keeps it per connection.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
        if let path {
            try prepareFile(at: path)
            writer = try DatabasePool(path: path, configuration: configuration)
            // After GRDB's own WAL set-up, which chooses NORMAL; only the one writer connection commits.
            let pragma = "PRAGMA synchronous = \(synchronous.rawValue.uppercased())"
            try writer.barrierWriteWithoutTransaction { db in try db.execute(sql: pragma) }
        } else {
            writer = try DatabaseQueue(configuration: configuration)
        }
        try writer.barrierWriteWithoutTransaction { db in try db.execute(sql: writerTempStore) }
        let migrator = migrator
        try migrator.migrate(writer)
        return writer
    }

    /// Set on the writer connection: its transactions' rollback journals for savepoints and statements stay in memory.
    ///
    /// Every member of a group commit after the first runs in a `SAVEPOINT` (``SQLiteGroupCommitter``), whose
    /// sub-journal keeps the original of each page the member changes; SQLite moves such a journal to a temporary
    /// file once it passes 64 KiB, which a group of sends did every time: push-dispatch wrote more pages there than
    /// into its WAL (docs/benchmarks.md, issue 33's fifth round), and those pages, deleted rows included, landed in the
    /// temporary directory's free blocks, out of `secure_delete`'s reach. Nothing in them is needed after the
    /// transaction (the WAL alone makes commits atomic), so memory holds them: at most the pages one transaction
    /// changes, freed when it ends.
    static let writerTempStore = "PRAGMA temp_store = MEMORY"

    /// Creates the data directory (0700) and the database file (0600) before SQLite opens it, so that the file and
    /// its `-wal`/`-shm` companions (which SQLite creates with the database's mode) are readable by the owner only:
    /// they hold password hashes, signing keys and payloads.
    static func prepareFile(at path: String) throws {
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !manager.fileExists(atPath: directory) {
            try manager.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if !manager.fileExists(atPath: path) {
            guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
    }
}
