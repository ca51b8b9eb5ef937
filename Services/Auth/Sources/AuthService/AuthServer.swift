import Hummingbird
import Logging
import ServiceCore
import ServiceLifecycle
import Tracing

/// The auth service as one lifecycle `Service`, on SQLite or PostgreSQL.
///
/// On PostgreSQL, auth needs its database before it can serve (it chooses the signing key and provisions clients at
/// start), so the database runs first and the application is built once the schema is migrated; both stop on
/// graceful shutdown.
public struct AuthServer: Service {
    let configuration: AuthConfiguration
    let logger: Logger
    let onServerRunning: @Sendable (Int) async -> Void
    let tracer: (any Tracer)?

    /// - Parameter tracer: traces every call; `nil` (the default) leaves tracing off.
    public init(
        configuration: AuthConfiguration, logger: Logger, tracer: (any Tracer)? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) {
        self.configuration = configuration
        self.logger = logger
        self.tracer = tracer
        self.onServerRunning = onServerRunning
    }

    public func run() async throws {
        guard let url = configuration.postgresURL else {
            let app = try await buildAuthApplication(
                configuration: configuration, logger: logger, tracer: tracer, onServerRunning: onServerRunning)
            try await app.run()
            return
        }
        let database = AuthDatabase.postgres(url: url, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            group.addTask {
                let app = try await buildAuthApplication(
                    configuration: configuration, logger: logger, postgres: database, tracer: tracer,
                    onServerRunning: onServerRunning)
                try await app.run()
            }
            // Either ending ends both: no auth without its database, no database kept for nobody.
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
