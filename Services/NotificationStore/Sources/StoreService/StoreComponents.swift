import Foundation
import GRDB
import Logging
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Every piece of a running notification store except the HTTP server: what `buildStoreApplication` serves,
/// and what tests drive directly through an `InProcessTransport`.
public struct StoreComponents: Sendable {
    /// The migrated database.
    public let database: any DatabaseWriter
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
    ///   - sealer: seals payloads at rest.
    ///   - now: the clock for lifetimes (tests move it forward instead of sleeping).
    public static func make(
        configuration: StoreConfiguration,
        auth: RPCClient,
        logger: Logger,
        sealer: any PayloadSealer = IdentityPayloadSealer(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> StoreComponents {
        let database = try SQLiteDatabase.open(path: configuration.databasePath, migrator: StoreMigrations.migrator)
        let verifier = AccessTokenVerifier(logger: logger) {
            try await auth.call(Auth.Keys.self, Empty()).keys
        }
        let store = NotificationStore(
            repository: SQLiteNotificationRepository(database: database, sealer: sealer),
            limits: .init(
                maxPayloadBytes: configuration.maxPayloadBytes,
                defaultTTLSeconds: configuration.defaultTTLSeconds,
                maxTTLSeconds: configuration.maxTTLSeconds
            ),
            now: now,
            logger: logger
        )
        let services: [any Service] = [
            SigningKeyLoader(verifier: verifier, logger: logger),
            PeriodicService(name: "store.purge", interval: configuration.purgeInterval, logger: logger) {
                try await store.purgeExpired()
            },
        ]
        return StoreComponents(
            database: database,
            store: store,
            verifier: verifier,
            dispatcher: makeStoreDispatcher(
                store: store, verifier: verifier, maxBatchLength: configuration.server.maxBatchLength),
            services: services
        )
    }

    /// The readiness checks `GET /health` reports: `database` and `keys`.
    public func health() async -> [String: String] {
        [
            "database": await SQLiteDatabase.readiness(of: database),
            "keys": await verifier.readiness,
        ]
    }
}
