import Logging
import ServiceCore

/// Auth's repository for work outside the running service (the `securepush clients`/`users` CLI).
public enum ConfiguredAuthRepository {
    /// Runs `body` on the database `configuration` names, as the service would: PostgreSQL when
    /// `postgresURL` is set (auth's schema, migrated first, the pool stopped afterwards), the SQLite file otherwise.
    public static func with<T: Sendable>(
        _ configuration: AuthConfiguration, logger: Logger, _ body: (any AuthRepository) async throws -> T
    ) async throws -> T {
        guard let url = configuration.postgresURL else {
            let writer = try AuthDatabase.open(path: configuration.databasePath)
            return try await body(SQLiteAuthRepository(writer: writer))
        }
        let database = AuthDatabase.postgres(url: url, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            defer { group.cancelAll() }
            return try await body(PostgresAuthRepository(database: database))
        }
    }
}

extension AuthDatabase {
    /// Auth's PostgreSQL database at `url`: schema `auth` (unless the URL names one), auth's migrations.
    public static func postgres(url: PostgresURL, logger: Logger) -> PostgresServiceDatabase {
        PostgresServiceDatabase(
            url: url, serviceName: "auth", schema: "auth", migrations: postgresMigrations, logger: logger)
    }
}
