import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// A service's PostgreSQL database: a connection pool that runs as a lifecycle `Service`, and the service's schema
/// migrations, applied when it starts.
///
/// Several replicas may start at once: migrations run in one transaction under a transaction-scoped advisory lock
/// keyed by the service name, so exactly one replica applies each version and the others wait, then find it applied.
/// Queries made before the migrations finished wait for them (``withClient(_:)``).
public final class PostgresServiceDatabase: Service, Sendable {
    /// The pool.
    public let client: PostgresClient
    /// `auth`, `notification-store` or `push-dispatch`: names the migrations and the advisory locks.
    public let serviceName: String
    /// The PostgreSQL schema holding the service's tables (its connections' `search_path`), so that the three
    /// services can share one database without their table names meeting.
    public let schema: String
    /// The logger queries log to.
    public let logger: Logger
    private let migrations: [PostgresMigration]
    private let ready = ReadinessGate()
    /// Connections in use and calls waiting for one (`nil`: metrics off). postgres-nio 1.33 keeps its pool's
    /// observability delegate internal (it only logs), so calls are counted here, as they enter the pool: see
    /// ``withConnection(_:)``, ``transaction(_:)`` and ``withAdvisoryLock(_:_:)``.
    private let pool: DatabasePoolMetrics?

    /// - Parameters:
    ///   - url: where the database is.
    ///   - serviceName: the owning service; its migrations are recorded under this name.
    ///   - schema: the PostgreSQL schema for the service's tables (created when missing); the URL's `schema`
    ///     parameter overrides it.
    ///   - migrations: the schema, in order.
    ///   - metrics: where the connections in use and the calls waiting for one are recorded (the service's metrics).
    /// The longest a query (waiting for the schema included) or a migration attempt may take.
    public let timeout: Duration

    public init(
        url: PostgresURL, serviceName: String, schema: String, migrations: [PostgresMigration], logger: Logger,
        timeout: Duration = .seconds(30), metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.timeout = timeout
        pool = DatabasePoolMetrics.make(backend: .postgresql, factory: metrics)
        var logger = logger
        logger[metadataKey: "db.system"] = "postgresql"
        var configuration = url.configuration
        let schema = url.schema ?? schema
        configuration.options.additionalStartupParameters.append(("search_path", schema))
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.serviceName = serviceName
        self.schema = schema
        self.migrations = migrations
        self.logger = logger
    }

    /// Runs the pool, applies the migrations (retrying while the database is unreachable), then serves queries until
    /// graceful shutdown.
    public func run() async throws {
        do {
            try await runPoolAndMigrate()
        } catch {
            await ready.fail(error)
            throw error
        }
        await ready.fail(CancellationError())
    }

    private func runPoolAndMigrate() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            var delay = Duration.milliseconds(200)
            while true {
                do {
                    try await withDeadline(timeout * 2) { try await self.migrate() }
                    await ready.open()
                    break
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    logger.error(
                        "db.migrate.failed",
                        metadata: ["error": "\(String(reflecting: error))", "retry.in": "\(delay)"])
                    await ready.fail(error)
                    try await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(10))
                }
            }
            try await group.waitForAll()
        }
    }

    /// Runs `body` once the schema is ready.
    @discardableResult
    public func withClient<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws
        -> T
    {
        try await withDeadline(timeout) {
            try await self.ready.wait()
            return try await body(self.client)
        }
    }

    /// Runs `body` on a connection of the pool once the schema is ready (counted in the pool's gauges).
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        try await withDeadline(timeout) {
            let turn = self.pool?.turn()
            defer { turn?.end() }
            try await self.ready.wait()
            return try await self.client.withConnection { connection in
                turn?.start()
                defer { turn?.end() }
                return try await body(connection)
            }
        }
    }

    /// Runs `body` in one transaction once the schema is ready; an error rolls it back.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        try await withDeadline(timeout) {
            let turn = self.pool?.turn()
            defer { turn?.end() }
            try await self.ready.wait()
            do {
                return try await self.client.withTransaction(logger: self.logger) { connection in
                    turn?.start()
                    defer { turn?.end() }
                    return try await body(connection)
                }
            } catch let error as PostgresTransactionError {
                // The body's own error (rolled back) is what callers map to JSON-RPC errors; BEGIN/COMMIT failures
                // stay.
                if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
                throw error
            }
        }
    }

    /// Runs `operation`, failing with ``PostgresTimeoutError`` after `limit` (the operation is cancelled).
    func withDeadline<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw PostgresTimeoutError(serviceName: self.serviceName, limit: limit)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// Runs `body` in a transaction only if no other replica holds the advisory lock `name` right now, so that
    /// periodic jobs (purges) run on one replica at a time. Returns `nil` when another replica had it.
    public func exclusively<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T? {
        // Keyed by schema too: deployments (or tests) sharing one database in separate schemas never skip each
        // other's rounds; the replicas of one deployment share a schema.
        let key = Self.lockKey("\(schema).\(serviceName).\(name)")
        return try await transaction { connection -> T? in
            let rows = try await connection.query("SELECT pg_try_advisory_xact_lock(\(key))", logger: self.logger)
            var locked = false
            for try await (value) in rows.decode(Bool.self) { locked = value }
            guard locked else { return nil }
            return try await body(connection)
        }
    }

    /// Runs `body` while holding the session advisory lock `name`, waiting for any other replica that holds it: for
    /// start-up decisions that span several queries (which signing key the auth replicas use).
    public func withAdvisoryLock<T: Sendable>(_ name: String, _ body: () async throws -> T) async throws -> T {
        let key = Self.lockKey("\(serviceName).\(name)")
        let turn = pool?.turn()
        defer { turn?.end() }
        try await ready.wait()
        return try await client.withConnection { connection in
            turn?.start()
            defer { turn?.end() }
            try await connection.query("SELECT pg_advisory_lock(\(key))", logger: logger)
            do {
                let result = try await body()
                try await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
                throw error
            }
        }
    }

    /// `"ok"` when the schema is ready and the database answers, otherwise the reason (for `GET /health`).
    public func readiness() async -> String {
        guard await ready.isOpen else { return "database not migrated yet" }
        do {
            let rows = try await client.query("SELECT 1", logger: logger)
            for try await _ in rows {}
            return "ok"
        } catch {
            return "database unavailable"
        }
    }

    private func migrate() async throws {
        // Keyed by schema: services sharing one schema migrate one after another (CREATE … IF NOT EXISTS is not
        // safe against a concurrent CREATE); services in different schemas migrate side by side.
        let key = Self.lockKey("migrations.\(schema)")
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(key))", logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\""), logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS securepush_migrations (
                    service TEXT NOT NULL, version TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    PRIMARY KEY (service, version))
                """, logger: logger)
            var applied = Set<String>()
            let rows = try await connection.query(
                "SELECT version FROM securepush_migrations WHERE service = \(serviceName)", logger: logger)
            for try await version in rows.decode(String.self) { applied.insert(version) }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO securepush_migrations (service, version) VALUES (\(serviceName), \(migration.version))",
                    logger: logger)
                logger.notice("db.migrated", metadata: ["db.migration": "\(serviceName) \(migration.version)"])
            }
        }
    }

    /// A stable 63-bit advisory-lock key for `name` (FNV-1a; the same in every process and version).
    static func lockKey(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int64(bitPattern: hash & 0x7fff_ffff_ffff_ffff)
    }
}

/// Holds queries until the schema is ready; after a failed attempt, waiting queries fail with its error.
actor ReadinessGate {
    private var opened = false
    private var lastError: (any Error)?
    private var waiters: [CheckedContinuation<Void, any Error>] = []

    var isOpen: Bool { opened }

    func open() {
        opened = true

        lastError = nil
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    func fail(_ error: any Error) {
        guard !opened else { return }
        lastError = error
        for waiter in waiters { waiter.resume(throwing: error) }
        waiters.removeAll()
    }

    func wait() async throws {
        if opened { return }
        if let lastError { throw lastError }
        try await withCheckedThrowingContinuation { waiters.append($0) }
    }
}

/// The database did not answer in time (unreachable, or the schema not migrated yet).
public struct PostgresTimeoutError: Error, CustomStringConvertible {
    /// The service whose database it is.
    public let serviceName: String
    /// How long was waited.
    public let limit: Duration

    public var description: String { "\(serviceName): the database did not answer within \(limit)" }
}
