import Foundation
import GRDB
import Logging
import Metrics
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Every piece of a running notification store except the HTTP server: what `buildStoreApplication` serves,
/// and what tests drive directly through an `InProcessTransport`.
public struct StoreComponents: Sendable {
    /// The migrated SQLite database, when the store runs on SQLite.
    public let sqlite: (any DatabaseWriter)?
    /// The PostgreSQL database, when the store runs on PostgreSQL (`SECUREPUSH_DATABASE_URL`).
    public let postgres: PostgresServiceDatabase?
    /// The domain logic.
    public let store: NotificationStore
    /// Verifies bearer tokens with auth's keys.
    public let verifier: AccessTokenVerifier
    /// The `store.*` methods.
    public let dispatcher: RPCDispatcher
    /// Background work: the signing-key loader and the purge of expired notifications.
    public let services: [any Service]

    /// Opens the database and wires everything together.
    /// - Parameters:
    ///   - configuration: database, limits and purge interval.
    ///   - auth: a client to the auth service; only `auth.keys` is called.
    ///   - logger: the service's logger.
    ///   - sealer: seals payloads at rest; by default AES-256-GCM under `configuration.storeKeys`.
    ///   - now: the clock for lifetimes (tests move it forward instead of sleeping).
    ///   - metrics: where the store's metrics are recorded.
    public static func make(
        configuration: StoreConfiguration,
        auth: RPCClient,
        logger: Logger,
        sealer: (any PayloadSealer)? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws -> StoreComponents {
        let storeMetrics = StoreMetrics(factory: metrics)
        let sealer = try sealer ?? configuration.storeKeys.makeSealer(logger: logger, now: now)
        let sqlite: (any DatabaseWriter)?
        let postgres: PostgresServiceDatabase?
        let repository: any NotificationRepository
        let replayCache: any ProofReplayCache
        if let url = configuration.postgresURL {
            sqlite = nil
            let database = PostgresServiceDatabase(
                url: url, serviceName: "notification-store", schema: "store", migrations: StoreMigrations.all.postgres,
                logger: logger, metrics: metrics)
            postgres = database
            repository = SQLNotificationRepository(database: PostgresSQLDatabase(database), sealer: sealer)
            // Replicas share one table, so a proof accepted by one is refused by every other.
            replayCache = SQLProofReplayCache(database: PostgresSQLDatabase(database))
        } else {
            let database = try SQLiteDatabase.open(
                path: configuration.databasePath, migrator: StoreMigrations.all.sqliteMigrator,
                synchronous: configuration.sqliteSynchronous)
            sqlite = database
            postgres = nil
            repository = SQLNotificationRepository(
                database: SQLiteSQLDatabase(database, metrics: metrics), sealer: sealer)
            replayCache = InMemoryProofReplayCache()
        }
        let verifier = AccessTokenVerifier(logger: logger) {
            try await auth.call(Auth.Keys.self, Empty()).keys
        }
        let store = NotificationStore(
            repository: repository,
            replayCache: replayCache,
            limits: .init(
                maxPayloadBytes: configuration.maxPayloadBytes,
                defaultTTLSeconds: configuration.defaultTTLSeconds,
                maxTTLSeconds: configuration.maxTTLSeconds
            ),
            now: now,
            logger: logger,
            metrics: storeMetrics
        )
        // The database comes first so that graceful shutdown stops it last.
        let services: [any Service] =
            (postgres.map { [$0] } ?? []) + [
                SigningKeyLoader(verifier: verifier, logger: logger),
                PeriodicService(name: "store.purge", interval: configuration.purgeInterval, logger: logger) {
                    try await store.purgeExpired()
                },
            ]
        return StoreComponents(
            sqlite: sqlite,
            postgres: postgres,
            store: store,
            verifier: verifier,
            dispatcher: StoreMethods.dispatcher(
                store: store, verifier: verifier, maxBatchLength: configuration.server.maxBatchLength,
                metrics: storeMetrics),
            services: services
        )
    }

    /// The readiness checks `GET /health` reports: `database` and `keys`.
    public func health() async -> [String: String] {
        [
            "database": await databaseReadiness(sqlite: sqlite, postgres: postgres),
            "keys": await verifier.readiness,
        ]
    }
}
