import Foundation
import GRDB

/// Opens the SQLite databases services keep their state in.
public enum SQLiteDatabase {
    /// Opens (creating when needed) a WAL-mode database at `path` and applies `migrator`.
    /// `nil` opens a private in-memory database (tests).
    public static func open(path: String?, migrator: DatabaseMigrator) throws -> any DatabaseWriter {
        let writer: any DatabaseWriter
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        if let path {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            writer = try DatabasePool(path: path, configuration: configuration)
        } else {
            writer = try DatabaseQueue(configuration: configuration)
        }
        let migrator = migrator
        try migrator.migrate(writer)
        return writer
    }

    /// `"ok"` when the database answers a trivial query, otherwise the reason (for `GET /health`).
    public static func readiness(of writer: any DatabaseWriter) async -> String {
        do {
            _ = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
            return "ok"
        } catch {
            return "database unavailable"
        }
    }
}
