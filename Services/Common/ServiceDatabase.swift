import CoreMetrics
import GRDB
import Logging
import ServiceLifecycle

/// A service's database, opened from its configuration the one way every service and the CLI do: PostgreSQL when
/// `SECUREPUSH_DATABASE_URL` is set (the service's schema, migrated when the pool starts running), the SQLite file
/// otherwise (created 0600 and migrated before this returns; in memory without a path).
///
/// It holds the one ``SQLDatabase`` of its writer: every repository of the service is built on ``sql`` (on SQLite that
/// value holds the lock that keeps transactions apart, so there is no way to make a second one over the same writer).
public struct ServiceDatabase: Sendable {
    /// The database the repositories are written against.
    public let sql: any SQLDatabase
    /// The open SQLite database, when the service runs on SQLite.
    public let sqlite: (any DatabaseWriter)?
    /// The PostgreSQL pool, when the service runs on PostgreSQL.
    public let postgres: PostgresServiceDatabase?

    /// Opens the database `configuration` names for the service whose schema is `schema`: the SQLite file (created
    /// and migrated when needed), or the PostgreSQL pool, which must run (``services``) before it answers and applies
    /// the migrations when it starts. Its connections in use and calls waiting are recorded with `metrics`.
    public static func open(
        _ configuration: some ServiceDatabaseConfiguration, schema: ServiceSchema, logger: Logger,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws -> ServiceDatabase {
        guard let url = configuration.postgresURL else {
            return try sqlite(
                path: configuration.databasePath, migrations: schema.migrations,
                synchronous: configuration.sqliteSynchronous, metrics: metrics)
        }
        return postgres(
            PostgresServiceDatabase(
                url: url, serviceName: schema.service, schema: schema.postgresSchema,
                migrations: schema.migrations.postgres, logger: logger, metrics: metrics))
    }

    /// The SQLite database at `path`, created and migrated with `migrations` when needed; `nil` is a private
    /// in-memory database (tests). Its connections in use and calls waiting are recorded with `metrics`.
    public static func sqlite(
        path: String?, migrations: [SQLMigration], synchronous: SQLiteSynchronous = .normal,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws -> ServiceDatabase {
        let writer = try SQLiteDatabase.open(path: path, migrator: migrations.sqliteMigrator, synchronous: synchronous)
        return ServiceDatabase(sql: SQLiteSQLDatabase(writer, metrics: metrics), sqlite: writer, postgres: nil)
    }

    /// A service on `database`, a PostgreSQL pool made with the service's migrations.
    public static func postgres(_ database: PostgresServiceDatabase) -> ServiceDatabase {
        ServiceDatabase(sql: PostgresSQLDatabase(database), sqlite: nil, postgres: database)
    }

    /// What must run while the service does, first in its service group so that it stops last: the PostgreSQL pool;
    /// nothing for SQLite.
    public var services: [any Service] { postgres.map { [$0] } ?? [] }

    /// `"ok"`, or why the database cannot serve (for `GET /health`).
    public func readiness() async -> String {
        if let postgres { return await postgres.readiness() }
        // Through `sql`, like every other read of the pool (``SQLiteSQLDatabase`` counts the readers in use).
        do {
            _ = try await sql.read("SELECT 1", [])
            return "ok"
        } catch {
            return "database unavailable"
        }
    }

    /// Runs `body` while the database runs (PostgreSQL's pool is started and migrated first, and stopped afterwards),
    /// for work outside the running service: `securepush clients create`, `users create`, `store-keys rotate`.
    public func whileRunning<T: Sendable>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        guard let postgres else { return try await body(sql) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await postgres.run() }
            defer { group.cancelAll() }
            return try await body(sql)
        }
    }
}
