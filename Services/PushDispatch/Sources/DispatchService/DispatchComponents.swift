import Foundation
import GRDB
import Logging
import RPCServer
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Every piece of a running push-dispatch except the HTTP server: what `buildDispatchApplication` serves, and what
/// tests drive directly through an `InProcessTransport`.
public struct DispatchComponents: Sendable {
    /// The migrated database.
    public let database: any DatabaseWriter
    /// Verifies bearer tokens with auth's keys.
    public let verifier: AccessTokenVerifier
    /// The `devices.*` logic.
    public let devices: DeviceRegistry
    /// The `push.*` logic.
    public let pushes: PushSender
    /// The direct channel's wake-up hub.
    public let hub: DirectHub
    /// The push providers by platform.
    public let providers: PushProviderRegistry
    /// Every push-dispatch method.
    public let dispatcher: RPCDispatcher
    /// Background work: the signing-key loader and the expiry sweep.
    public let services: [any Service]
    let eventRoute: DirectEventRoute

    /// Opens the database and wires everything together.
    /// - Parameters:
    ///   - configuration: database, limits, client credentials and intervals.
    ///   - auth: a client to auth: `auth.keys` (to verify tokens) and `auth.clientToken` (our own token for the store).
    ///   - store: a client to the notification store (`store.put`); its `peerName` names it in `-32050` errors.
    ///   - logger: the service's logger.
    ///   - now: the clock for expiry (tests move it forward instead of sleeping).
    public static func make(
        configuration: DispatchConfiguration,
        auth: RPCClient,
        store: RPCClient,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> DispatchComponents {
        let database = try SQLiteDatabase.open(path: configuration.databasePath, migrator: DispatchMigrations.migrator)
        let verifier = AccessTokenVerifier(logger: logger) {
            try await auth.call(Auth.Keys.self, Empty()).keys
        }
        let tokens = ClientCredentialsTokenProvider(
            auth: auth, clientID: configuration.dispatchClientID, clientSecret: configuration.dispatchClientSecret)
        let deviceRepository = SQLiteDeviceRepository(database: database)
        let deliveryRepository = SQLiteDeliveryRepository(database: database)
        let hub = DirectHub()
        let providers = PushProviderRegistry([DirectProvider(hub: hub)])
        let devices = DeviceRegistry(
            devices: deviceRepository, deliveries: deliveryRepository, providers: providers, hub: hub, now: now,
            logger: logger)
        let pushes = PushSender(
            deliveries: deliveryRepository,
            store: NotificationStoreWriter(store: store, tokens: tokens),
            providers: providers,
            limits: .init(maxPayloadBytes: configuration.maxPayloadBytes, maxTTLSeconds: configuration.maxTTLSeconds),
            now: now,
            logger: logger
        )
        let services: [any Service] = [
            SigningKeyLoader(verifier: verifier, logger: logger),
            PeriodicService(name: "dispatch.expiry", interval: configuration.expiryInterval, logger: logger) {
                try await pushes.expireAndPurge()
            },
        ]
        return DispatchComponents(
            database: database,
            verifier: verifier,
            devices: devices,
            pushes: pushes,
            hub: hub,
            providers: providers,
            dispatcher: makeDispatchDispatcher(
                devices: devices, pushes: pushes, verifier: verifier,
                maxBatchLength: configuration.server.maxBatchLength),
            services: services,
            eventRoute: DirectEventRoute(
                verifier: verifier, devices: deviceRepository, deliveries: deliveryRepository, hub: hub,
                keepaliveInterval: configuration.keepaliveInterval, now: now)
        )
    }

    /// The readiness checks `GET /health` reports: `database` and `keys`.
    public func health() async -> [String: String] {
        [
            "database": await SQLiteDatabase.readiness(of: database),
            "keys": await verifier.readiness,
        ]
    }

    /// Adds the direct channel's `GET /devices/:deviceId/events` route.
    public func addRoutes(to router: RPCServerBuilder.ServiceRouter) {
        eventRoute.register(on: router)
    }
}
