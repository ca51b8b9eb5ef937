import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import ServiceCore

/// The PostgreSQL the tests may use: `SECUREPUSH_TEST_DATABASE_URL` (`.ci/postgres.sh start` sets it). Without it,
/// PostgreSQL cases are left out of parameterised tests and PostgreSQL-only tests are skipped with a notice.
public enum TestPostgres {
    /// The notice skipped PostgreSQL tests show.
    public static let skipNotice =
        "SECUREPUSH_TEST_DATABASE_URL is not set: PostgreSQL tests skipped (run `source .ci/postgres.sh start` first)"

    /// The URL, when configured.
    public static var url: String? {
        ProcessInfo.processInfo.environment["SECUREPUSH_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether PostgreSQL tests run.
    public static var isConfigured: Bool { url != nil }

    /// The database backends a repository test runs on: SQLite always, PostgreSQL when configured.
    public static var backends: [TestDatabaseBackend] { isConfigured ? [.sqlite, .postgres] : [.sqlite] }

    /// A URL for a fresh, private schema (so parallel tests never see each other's rows); `poolSize` caps the
    /// pool's connections (`pool_size`).
    public static func isolatedURL(schemaPrefix: String = "t", poolSize: Int? = nil) throws -> PostgresURL {
        guard let url else { throw TestPostgresError.notConfigured }
        let schema =
            "\(schemaPrefix)_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        let pool = poolSize.map { "&pool_size=\($0)" } ?? ""
        return try PostgresURL(url + (url.contains("?") ? "&" : "?") + "schema=\(schema)" + pool)
    }

    /// Two replicas' databases (two pools, each migrating at start) on one fresh schema, for `body`.
    public static func withTwoReplicas<T: Sendable>(
        serviceName: String,
        migrations: [PostgresMigration],
        _ body: (PostgresServiceDatabase, PostgresServiceDatabase) async throws -> T
    ) async throws -> T {
        let url = try isolatedURL()
        return try await withDatabase(serviceName: serviceName, migrations: migrations, url: url) { first in
            try await withDatabase(serviceName: serviceName, migrations: migrations, url: url) { second in
                try await body(first, second)
            }
        }
    }

    /// Runs a migrated database on a fresh schema for the duration of `body`, then stops it and drops the schema
    /// (unless `dropSchema` is false: another database on the same schema owns it). Its pool's gauges go to `metrics`.
    public static func withDatabase<T: Sendable>(
        serviceName: String,
        migrations: [PostgresMigration],
        url: PostgresURL? = nil,
        timeout: Duration = .seconds(30),
        dropSchema: Bool = true,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        _ body: (PostgresServiceDatabase) async throws -> T
    ) async throws -> T {
        let url = try url ?? isolatedURL()
        let logger = Logger(label: "test-postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let database = PostgresServiceDatabase(
            url: url, serviceName: serviceName, schema: "unused", migrations: migrations, logger: logger,
            timeout: timeout, metrics: metrics)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            let result: Result<T, any Error>
            do {
                result = .success(try await body(database))
            } catch {
                result = .failure(error)
            }
            if dropSchema, url.schema != nil {
                _ = try? await database.withClient { client in
                    try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(database.schema)\" CASCADE"))
                }
            }
            group.cancelAll()
            return try result.get()
        }
    }
}

/// Where a repository test keeps its rows.
public enum TestDatabaseBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}

/// Why a PostgreSQL test could not start.
public enum TestPostgresError: Error {
    case notConfigured
}
