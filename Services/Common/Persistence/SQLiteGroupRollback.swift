/// Why a transaction that ran its statements was not committed: SQLite rolled back the database transaction it shared
/// with others (group commit, ``SQLiteGroupCommitter``) because of another transaction of the group.
public struct SQLiteGroupRollback: Error, CustomStringConvertible {
    /// The error of the transaction whose failure rolled the group back, when there was one.
    public let cause: (any Error)?

    public var description: String {
        let why = cause.map { ": \($0)" } ?? ""
        return "the transaction was rolled back with the others that shared its commit\(why)"
    }
}
