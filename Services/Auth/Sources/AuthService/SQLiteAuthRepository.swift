import Foundation
import GRDB

/// The SQLite implementation of `AuthRepository` on GRDB.
public struct SQLiteAuthRepository: AuthRepository {
    let writer: any DatabaseWriter

    /// Uses a database opened with `AuthDatabase.open(path:)` (or any writer migrated with `AuthDatabase.migrator`).
    public init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Whether `error` is SQLite refusing a duplicate key.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
    }
}
