import Logging
import ServiceCore

/// Auth's repository for work outside the running service (the `securepush clients`/`users` CLI).
public enum ConfiguredAuthRepository {
    /// Runs `body` on the database `configuration` names, as the service would: PostgreSQL when
    /// `postgresURL` is set (auth's schema, migrated first, the pool stopped afterwards), the SQLite file otherwise.
    public static func with<T: Sendable>(
        _ configuration: AuthConfiguration, logger: Logger, _ body: (any AuthRepository) async throws -> T
    ) async throws -> T {
        let database = try ServiceDatabase.open(configuration, schema: AuthMigrations.schema, logger: logger)
        return try await database.whileRunning { try await body(SQLAuthRepository(database: $0)) }
    }
}
