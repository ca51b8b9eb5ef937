/// What a service's configuration says about its database (`SECUREPUSH_DATABASE_URL`, `SECUREPUSH_DATA_DIR`,
/// `SECUREPUSH_SQLITE_SYNCHRONOUS`): every service configuration has these three.
public protocol ServiceDatabaseConfiguration {
    /// PostgreSQL instead of SQLite, for several replicas.
    var postgresURL: PostgresURL? { get }
    /// The SQLite file; `nil` keeps everything in memory (tests). Unused when ``postgresURL`` is set.
    var databasePath: String? { get }
    /// When SQLite commits reach the disk.
    var sqliteSynchronous: SQLiteSynchronous { get }
}
