import Foundation
import GRDB
import Logging
import Metrics
import RPCServer
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Every piece of a running notification store except the HTTP server: what `buildStoreApplication` serves,
/// and what tests drive directly through an `InProcessTransport`.
public struct StoreComponents: RPCServiceComponents {
    /// The database (SQLite, or PostgreSQL whose pool runs first: by the plan, or first of `services` when `make`
    /// opened it).
    public let database: ServiceDatabase
    /// The domain logic.
    public let store: NotificationStore
    /// Verifies bearer tokens with auth's keys.
    public let verifier: AccessTokenVerifier
    /// The audit trail: fetches, stores, deletions, revocations.
    public let audit: AuditTrail
    /// The `store.*` methods.
    public let dispatcher: RPCDispatcher
    /// Background work: the signing-key loader and the purge of expired notifications.
    public let services: [any Service]
    /// The PKCS#11 key wrapping the store key file's keys, if any (for health).
    let keyWrapping: EncryptionKeyWrapping?

    /// The open SQLite database, when the store runs on SQLite.
    public var sqlite: (any DatabaseWriter)? { database.sqlite }
    /// The PostgreSQL database, when the store runs on PostgreSQL (`SECUREPUSH_DATABASE_URL`).
    public var postgres: PostgresServiceDatabase? { database.postgres }

    /// Opens the database and wires everything together.
    /// - Parameters:
    ///   - configuration: database, limits and purge interval.
    ///   - auth: a client to the auth service; only `auth.keys` is called.
    ///   - database: the store's database, run by the caller; `nil` opens the one `configuration` names, first of
    ///     ``services``.
    ///   - logger: the service's logger.
    ///   - sealer: seals payloads at rest; by default AES-256-GCM under `configuration.storeKeys`.
    ///   - now: the clock for lifetimes (tests move it forward instead of sleeping).
    ///   - metrics: where the store's metrics are recorded.
    public static func make(
        configuration: StoreConfiguration,
        auth: RPCClient,
        database: ServiceDatabase? = nil,
        logger: Logger,
        sealer: (any PayloadSealer)? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws -> StoreComponents {
        let storeMetrics = StoreMetrics(factory: metrics)
        let sealer =
            try sealer
            ?? configuration.storeKeys.makeSealer(logger: logger, now: now, wrapping: configuration.storeKeyWrapping)
        let given = database
        let database =
            try given
            ?? ServiceDatabase.open(configuration, schema: StoreMigrations.schema, logger: logger, metrics: metrics)
        let repository = SQLNotificationRepository(database: database.sql, sealer: sealer, logger: logger)
        let keyring: any AuditKeyring =
            if let client = configuration.storeClient {
                CachedAuditKeyring(
                    RemoteAuditKeyring(
                        auth: auth,
                        tokens: ClientCredentialsTokenProvider(
                            auth: auth, clientID: client.id, clientSecret: client.secret, now: now)))
            } else {
                EphemeralAuditKeyring()
            }
        let audit = AuditTrail(
            repository: SQLAuditRepository(database: database.sql, schema: StoreMigrations.schema), keyring: keyring,
            signingKey: try configuration.audit.loadKey(logger: logger), configuration: configuration.audit,
            logger: logger, metrics: metrics)
        HardwareModuleMetrics.observe([configuration.storeKeyWrapping?.token, audit.hardwareToken], factory: metrics)
        // Replicas share one table, so a proof accepted by one is refused by every other; one process keeps it in memory.
        let replayCache: any ProofReplayCache =
            database.postgres == nil
            ? InMemoryProofReplayCache(perDevice: configuration.proofsPerDevice)
            : SQLProofReplayCache(database: database.sql, perDevice: configuration.proofsPerDevice)
        let proofLimiter = ProofRateLimiter(
            counters: database.postgres == nil
                ? InMemoryAttemptCounters() : SQLAttemptCounters(database: database.sql, table: ProofRateLimiter.table),
            perMinute: configuration.proofRateLimit, now: now)
        let verifier = AccessTokenVerifier(logger: logger) {
            try await auth.call(Auth.Keys.self, Empty()).keys
        }
        var configuredStore = NotificationStore(
            repository: repository,
            replayCache: replayCache,
            limits: .init(
                maxPayloadBytes: configuration.maxPayloadBytes,
                defaultTTLSeconds: configuration.defaultTTLSeconds,
                maxTTLSeconds: configuration.maxTTLSeconds
            ),
            now: now,
            logger: logger,
            metrics: storeMetrics,
            audit: audit
        )
        configuredStore.receiptRetention = .seconds(configuration.receiptRetentionSeconds)
        configuredStore.retentionMetrics = RetentionMetrics(factory: metrics)
        let store = configuredStore
        // The database comes first so that graceful shutdown stops it last.
        let services: [any Service] =
            (given == nil ? database.services : []) + [
                audit,
                SigningKeyLoader(verifier: verifier, logger: logger),
                PeriodicService(name: "store.purge", interval: configuration.purgeInterval, logger: logger) {
                    try await store.purgeExpired()
                    try await proofLimiter.purge()
                },
            ]
        return StoreComponents(
            database: database,
            store: store,
            verifier: verifier,
            audit: audit,
            dispatcher: StoreMethods.dispatcher(
                store: store, verifier: verifier, maxBatchLength: configuration.server.maxBatchLength,
                metrics: storeMetrics, proofLimiter: proofLimiter, audit: audit),
            services: services,
            keyWrapping: configuration.storeKeyWrapping
        )
    }

    /// The readiness checks `GET /health` reports: `database` and `keys`.
    public func health() async -> [String: String] {
        [
            "database": await database.readiness(),
            "keys": await verifier.readiness,
        ].merging(await HardwareModuleHealth.checks([keyWrapping?.probe, audit.hardwareProbe])) { first, _ in first }
    }
}
