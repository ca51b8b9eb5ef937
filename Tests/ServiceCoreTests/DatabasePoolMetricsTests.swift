import CoreMetrics
import Foundation
import MetricsTestKit
import ServiceCore
import TestSupport
import Testing

/// `securepush_database_connections_in_use` and `…_waiting`, counted where our code enters GRDB or postgres-nio.
@Suite("database pool gauges: connections in use and calls waiting for one")
struct DatabasePoolMetricsTests {
    static let migrations = [SQLMigration("v1", ["CREATE TABLE probe (id TEXT PRIMARY KEY)"])]

    /// Runs `body` on a fresh database whose gauges go to `metrics`: a SQLite file (one writer, a pool of readers),
    /// or PostgreSQL with a pool of one connection.
    func withDatabase(
        _ backend: TestDatabaseBackend, metrics: TestMetrics, _ body: (any SQLDatabase) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            let directory = TemporaryDirectory.processRootURL.appendingPathComponent("pool-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = try ServiceDatabase.sqlite(
                path: directory.appendingPathComponent("probe.sqlite").path, migrations: Self.migrations,
                metrics: metrics)
            try await body(database.sql)
        case .postgres:
            try await TestPostgres.withDatabase(
                serviceName: "pool-probe", migrations: Self.migrations.postgres,
                url: try TestPostgres.isolatedURL(poolSize: 1), metrics: metrics
            ) { try await body(PostgresSQLDatabase($0)) }
        }
    }

    /// The two gauges of `database`'s backend.
    func gauges(_ metrics: TestMetrics, _ database: any SQLDatabase) throws -> (inUse: TestMeter, waiting: TestMeter) {
        let backend = [("backend", database.dialect.name)]
        return (
            try metrics.expectMeter("securepush_database_connections_in_use", backend),
            try metrics.expectMeter("securepush_database_connections_waiting", backend)
        )
    }

    /// Whether `meter` shows `value` within 10 s (checked every 10 ms).
    func reaches(_ meter: TestMeter, _ value: Double) async -> Bool {
        for _ in 0..<1000 {
            if meter.lastValue == value { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return meter.lastValue == value
    }

    @Test(
        "a transaction held open is one connection in use; a second one waits for it, then takes its turn",
        arguments: TestPostgres.backends)
    func heldTransaction(backend: TestDatabaseBackend) async throws {
        let metrics = TestMetrics()
        try await withDatabase(backend, metrics: metrics) { database in
            let (inUse, waiting) = try gauges(metrics, database)
            #expect(inUse.values.isEmpty && waiting.values.isEmpty, "nothing counted before the first call")
            let entered = Signal()
            let release = Signal()
            let first = Task {
                try await database.transaction { transaction in
                    entered.fire()
                    _ = await release.wait(timeout: .seconds(30))
                    return try await transaction.execute("INSERT INTO probe (id) VALUES (?)", ["first"])
                }
            }
            #expect(await entered.wait(timeout: .seconds(30)), "a pool of one gives its connection (slow under load)")
            #expect(inUse.lastValue == 1)
            #expect(waiting.lastValue == 0)

            let second = Task {
                try await database.transaction { transaction in
                    try await transaction.execute("INSERT INTO probe (id) VALUES (?)", ["second"])
                }
            }
            #expect(await reaches(waiting, 1))
            #expect(inUse.lastValue == 1, "the second transaction has no connection yet")

            release.fire()
            #expect(try await first.value == 1)
            #expect(try await second.value == 1)
            #expect(inUse.lastValue == 0)
            #expect(waiting.lastValue == 0)
            #expect(inUse.values.max() == 1, "never two in use on a pool of one writer or connection")
        }
    }

    @Test("a read uses a connection while it runs and gives it back", arguments: TestPostgres.backends)
    func readCounted(backend: TestDatabaseBackend) async throws {
        let metrics = TestMetrics()
        try await withDatabase(backend, metrics: metrics) { database in
            _ = try await database.read("SELECT count(*) FROM probe", [])
            let (inUse, waiting) = try gauges(metrics, database)
            #expect(inUse.values.contains(1))
            #expect(waiting.values.contains(1), "asked before it had its connection")
            #expect(inUse.lastValue == 0)
            #expect(waiting.lastValue == 0)
        }
    }

    @Test("with metrics off the databases count nothing at all")
    func offCountsNothing() {
        #expect(DatabasePoolMetrics.make(backend: .sqlite, factory: NOOPMetricsHandler.instance) == nil)
        #expect(DatabasePoolMetrics.make(backend: .postgresql, factory: TestMetrics()) != nil)
    }
}
