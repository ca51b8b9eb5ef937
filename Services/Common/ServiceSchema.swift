/// A service's schema: the service it belongs to, the PostgreSQL schema its tables live in, and its migrations.
public struct ServiceSchema: Sendable {
    /// `auth`, `notification-store` or `push-dispatch`: names the migration records and advisory locks.
    public let service: String
    /// The PostgreSQL schema (`auth`, `store`, `dispatch`); the URL's `schema` parameter overrides it.
    public let postgresSchema: String
    /// The schema's steps, in order.
    public let migrations: [SQLMigration]

    /// - Parameters:
    ///   - service: the owning service's name.
    ///   - postgresSchema: the PostgreSQL schema for its tables.
    ///   - migrations: its one list of migrations.
    public init(service: String, postgresSchema: String, migrations: [SQLMigration]) {
        self.service = service
        self.postgresSchema = postgresSchema
        self.migrations = migrations
    }
}
