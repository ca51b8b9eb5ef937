extension SQLDialect {
    /// Appended to a `SELECT` in a transaction that reads rows in order to change them, so that another replica doing
    /// the same waits for this transaction and then sees its changes: `FOR UPDATE` on PostgreSQL; empty on SQLite,
    /// whose single writer already runs such transactions one at a time.
    public var lockRows: String {
        self == .postgresql ? "FOR UPDATE" : ""
    }
}
