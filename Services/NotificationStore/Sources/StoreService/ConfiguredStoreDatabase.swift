import Logging
import ServiceCore

/// The store's database for work outside the running service (`securepush store-keys rotate`).
public enum ConfiguredStoreDatabase {
    /// Runs `body` on the database `configuration` names, as the service would: PostgreSQL when `postgresURL` is set
    /// (the store's schema, migrated first, the pool stopped afterwards), the SQLite file otherwise.
    public static func with<T: Sendable>(
        _ configuration: StoreConfiguration, logger: Logger, _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        guard let url = configuration.postgresURL else {
            let writer = try SQLiteDatabase.open(
                path: configuration.databasePath, migrator: StoreMigrations.all.sqliteMigrator,
                synchronous: configuration.sqliteSynchronous)
            return try await body(SQLiteSQLDatabase(writer))
        }
        let database = PostgresServiceDatabase(
            url: url, serviceName: "notification-store", schema: "store", migrations: StoreMigrations.all.postgres,
            logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            defer { group.cancelAll() }
            return try await body(PostgresSQLDatabase(database))
        }
    }
}
