import CoreMetrics
import GRDB
import Logging
import ServiceCore
import ServiceLifecycle

/// auth's database as its configuration names it: the SQLite file (in memory without a path), or PostgreSQL
/// (`SECUREPUSH_DATABASE_URL`, schema `auth`) whose pool is a lifecycle service that must run before auth is built.
public struct AuthDatabase: Sendable {
    /// The database the repository and the attempt counters are written against.
    public let sql: any SQLDatabase
    /// The open SQLite database, when auth runs on SQLite.
    public let sqlite: (any DatabaseWriter)?
    /// The PostgreSQL pool, when auth runs on PostgreSQL.
    public let postgres: PostgresServiceDatabase?

    /// Opens (creating and migrating when needed) the SQLite database, or prepares the PostgreSQL pool (migrated when
    /// it starts running); its connections in use and waiting are recorded with `metrics`.
    public static func open(
        _ configuration: AuthConfiguration, logger: Logger, metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws -> AuthDatabase {
        if let url = configuration.postgresURL {
            return postgres(
                PostgresServiceDatabase(
                    url: url, serviceName: "auth", schema: "auth", migrations: AuthMigrations.all.postgres,
                    logger: logger, metrics: metrics))
        }
        return try sqlite(
            path: configuration.databasePath, synchronous: configuration.sqliteSynchronous, metrics: metrics)
    }

    /// The SQLite database at `path`, created and migrated when needed; `nil` is a private in-memory database.
    public static func sqlite(
        path: String?, synchronous: SQLiteSynchronous = .normal,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws -> AuthDatabase {
        let writer = try SQLiteDatabase.open(
            path: path, migrator: AuthMigrations.all.sqliteMigrator, synchronous: synchronous)
        return AuthDatabase(sql: SQLiteSQLDatabase(writer, metrics: metrics), sqlite: writer, postgres: nil)
    }

    /// auth on a PostgreSQL pool made with ``AuthMigrations/all``.
    public static func postgres(_ database: PostgresServiceDatabase) -> AuthDatabase {
        AuthDatabase(sql: PostgresSQLDatabase(database), sqlite: nil, postgres: database)
    }

    /// What must run while auth does: the PostgreSQL pool; nothing for SQLite.
    public var services: [any Service] { postgres.map { [$0] } ?? [] }

    /// `"ok"`, or why the database cannot serve (for `GET /health`).
    public func readiness() async -> String {
        await databaseReadiness(sqlite: sqlite, postgres: postgres)
    }

    /// Runs `body` while the database runs (PostgreSQL's pool is started first and stopped afterwards), for work
    /// outside the running service such as the `securepush clients`/`users` CLI.
    public func whileRunning<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard let postgres else { return try await body() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await postgres.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}
