import Hummingbird
import Logging
import ServiceCore
import ServiceLifecycle

/// The auth service as one lifecycle `Service`, on SQLite or PostgreSQL.
///
/// On PostgreSQL, auth needs its database before it can serve (it chooses the signing key and provisions clients at
/// start), so the database runs first and the application is built once the schema is migrated; both stop on
/// graceful shutdown.
public struct AuthServer: Service {
    let configuration: AuthConfiguration
    let logger: Logger
    let onServerRunning: @Sendable (Int) async -> Void

    public init(
        configuration: AuthConfiguration, logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void
    ) {
        self.configuration = configuration
        self.logger = logger
        self.onServerRunning = onServerRunning
    }

    public func run() async throws {
        guard let url = configuration.postgresURL else {
            let app = try await buildAuthApplication(
                configuration: configuration, logger: logger, onServerRunning: onServerRunning)
            try await app.run()
            return
        }
        let database = AuthDatabase.postgres(url: url, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            group.addTask {
                let app = try await buildAuthApplication(
                    configuration: configuration, logger: logger, postgres: database,
                    onServerRunning: onServerRunning)
                try await app.run()
            }
            // Either ending ends both: no auth without its database, no database kept for nobody.
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
