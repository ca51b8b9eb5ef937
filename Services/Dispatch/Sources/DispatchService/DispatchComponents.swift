import Foundation
import GRDB
import Logging
import Metrics
import RPCServer
import ServiceCore
import ServiceLifecycle
import SharedModels
import Tracing

/// Every piece of a running push-dispatch except the HTTP server: what `buildDispatchApplication` serves, and what
/// tests drive directly through an `InProcessTransport`.
public struct DispatchComponents: RPCServiceComponents {
    /// The database (SQLite, or PostgreSQL run first: by the plan, or first of `services` when `make` opened it);
    /// every repository is built on its one `sql`.
    public let database: ServiceDatabase
    /// The open SQLite database, when push-dispatch runs on SQLite.
    public var sqlite: (any DatabaseWriter)? { database.sqlite }
    /// The PostgreSQL database, when push-dispatch runs on PostgreSQL (`SECUREPUSH_DATABASE_URL`).
    public var postgres: PostgresServiceDatabase? { database.postgres }
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
    /// Background work: the signing-key loader, the expiry sweep, the direct channel's sweep and one delivery worker per
    /// remote provider.
    public let services: [any Service]
    /// The delivery workers, one per remote platform (also in `services`).
    public let workers: [DeliveryWorker]
    /// The apps served, kept equal to the database by ``appLoader``.
    public var apps: AppCatalog { providers.catalog }
    /// Reads the apps from the database (also in `services`, before the workers, so it stops after them).
    public let appLoader: AppCatalogLoader
    /// Sends device revocations to the store (also in `services`).
    public let revocations: RevocationSender
    /// Traces calls, provider attempts and events written; `nil` when tracing is off.
    public let tracer: (any Tracer)?
    /// The audit trail: sends, cancels, device and app and webhook changes.
    public let audit: AuditTrail
    /// Records and delivers webhook events (also in `services`).
    let webhookSender: WebhookSender
    /// The direct channel's periodic sweep (also in `services`, every `sweepInterval`).
    let sweep: DirectSweep
    let eventRoute: DirectEventRoute
    let webAssetRoute: WebAssetRoute
    /// The PKCS#11 key wrapping the apps' key file, if any (for health).
    let appsKeyWrapping: EncryptionKeyWrapping?

    /// Opens the database and wires everything together.
    /// - Parameters:
    ///   - configuration: database, limits, client credentials and intervals.
    ///   - auth: a client to auth: `auth.keys` (to verify tokens), `auth.clientToken` (our own token for the store)
    ///     and `auth.lookupUser` (to refuse sends to unknown recipients).
    ///   - store: a client to the notification store (`store.put`); its `peerName` names it in `-32050` errors.
    ///   - database: push-dispatch's database, run by the caller; `nil` opens the one `configuration` names, first of
    ///     ``services``.
    ///   - providers: the remote providers of the `default` app (APNs, FCM, WNS, Web Push; at most one per platform)
    ///     beside the built-in direct channel. `devices.register` accepts exactly `direct` and these platforms for the
    ///     `default` app. Every remote platform gets a `DeliveryWorker` in `services` (apps in the database may
    ///     configure any of them); the app loader shuts every provider down after the workers stopped.
    ///   - appProviders: builds the providers of an app in the database from its credentials (default: the real
    ///     providers with the deployment's connection settings from the process environment).
    ///   - logger: the service's logger.
    ///   - now: the clock for expiry and delivery times (tests move it forward instead of sleeping).
    ///   - metrics: where push-dispatch's metrics are recorded.
    ///   - tracer: traces `push.send` (its trace context is kept with the jobs), each provider attempt and each event
    ///     the direct channel writes; `nil` (the default) traces nothing.
    public static func make(
        configuration: DispatchConfiguration,
        auth: RPCClient,
        store: RPCClient,
        database: ServiceDatabase? = nil,
        providers remoteProviders: [any RemotePushProvider] = [],
        appProviders: AppCatalogLoader.ProviderFactory? = nil,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        tracer: (any Tracer)? = nil
    ) throws -> DispatchComponents {
        let tracing = DeliveryTracing(tracer: tracer)
        let dispatchMetrics = DispatchMetrics(factory: metrics)
        try Self.checkRemote(remoteProviders)
        let given = database
        let database =
            try given
            ?? ServiceDatabase.open(configuration, schema: DispatchMigrations.schema, logger: logger, metrics: metrics)
        let deviceRepository = SQLDeviceRepository(database: database.sql)
        let deliveryRepository = SQLDeliveryRepository(database: database.sql)
        if let sqlite = database.sqlite {
            // One push-dispatch process owns a SQLite file: a reservation still pending when it starts was left by a
            // process that died mid-send, and a retry of that send must not wait for it to go stale.
            // Likewise scheduled sends and webhook events it had claimed: they are claimable again at once.
            let released = try sqlite.write { db in
                try db.execute(sql: SQLDeliveryRepository.releaseAllClaimedSchedules)
                try db.execute(sql: SQLDeliveryRepository.releaseAllPendingReservations)
                let reservations = db.changesCount
                // Webhook events it was attempting: attempted again at once (at least once, same webhook-id).
                try db.execute(sql: SQLWebhookRepository.releaseAllClaimed)
                return reservations
            }
            if released > 0 {
                logger.notice("push.idempotency.released_at_start", metadata: ["push.reservations": "\(released)"])
            }
        }
        let verifier = AccessTokenVerifier(logger: logger) {
            try await auth.call(Auth.Keys.self, Empty()).keys
        }
        let tokens = ClientCredentialsTokenProvider(
            auth: auth, clientID: configuration.dispatchClientID, clientSecret: configuration.dispatchClientSecret,
            now: now)
        let audit = AuditTrail(
            repository: SQLAuditRepository(database: database.sql, schema: DispatchMigrations.schema),
            keyring: CachedAuditKeyring(RemoteAuditKeyring(auth: auth, tokens: tokens)),
            signingKey: try configuration.audit.loadKey(logger: logger), configuration: configuration.audit,
            logger: logger, metrics: metrics)
        HardwareModuleMetrics.observe(
            [try configuration.appsKeys.wrapping?.open(), audit.hardwareToken], factory: metrics)
        let hub = DirectHub(maxStreamsPerDevice: configuration.maxStreamsPerDevice)
        let catalog = AppCatalog(
            environmentProviders: remoteProviders, defaultAppID: configuration.defaultAppID, loadsDatabase: true)
        let appRepository = SQLAppRepository(database: database.sql)
        let makeAppProviders =
            appProviders ?? PushProviders.appProviderFactory(environment: ServiceEnvironment(), logger: logger)
        let appLoader = AppCatalogLoader(
            catalog: catalog, repository: appRepository, keys: configuration.appsKeys,
            makeProviders: makeAppProviders, interval: configuration.appsRefreshInterval, logger: logger)
        let workers = Platform.remote.sorted { $0.rawValue < $1.rawValue }.map { platform in
            DeliveryWorker(
                platform: platform, catalog: catalog, deliveries: deliveryRepository, doorbell: WakeUpSignal(),
                configuration: configuration.delivery, now: now, logger: logger, metrics: dispatchMetrics,
                tracing: tracing)
        }
        let providers = PushProviderRegistry(direct: DirectProvider(hub: hub), catalog: catalog, workers: workers)
        let storeWriter = NotificationStoreWriter(store: store, tokens: tokens)
        let revocationSender = RevocationSender(
            outbox: DeviceRevocationOutbox(database: database.sql), store: storeWriter,
            pollInterval: configuration.revocationPollInterval, now: now, logger: logger, metrics: metrics)
        let devices = DeviceRegistry(
            devices: deviceRepository, deliveries: deliveryRepository, providers: providers, hub: hub,
            maxDevicesPerUser: configuration.maxDevicesPerUser, now: now, logger: logger, metrics: dispatchMetrics,
            revocationQueued: { revocationSender.wake() }, browserOrigins: configuration.server.cors, audit: audit)
        var mutablePushes = PushSender(
            deliveries: deliveryRepository,
            devices: deviceRepository,
            store: storeWriter,
            recipients: RecipientDirectory(auth: auth, tokens: tokens, now: now),
            providers: providers,
            sendCounters: SQLAttemptCounters(database: database.sql, table: SQLAppRepository.sendCountersTable),
            limits: .init(
                maxPayloadBytes: configuration.maxPayloadBytes, maxTTLSeconds: configuration.maxTTLSeconds,
                idempotencyTimeout: configuration.idempotencyTimeout,
                retention: .seconds(configuration.deliveryRetentionSeconds),
                defaultTTLSeconds: configuration.defaultTTLSeconds,
                maxScheduleSeconds: configuration.maxScheduleSeconds,
                idempotencyRetention: configuration.idempotencyRetentionSeconds == 0
                    ? nil : .seconds(configuration.idempotencyRetentionSeconds)
            ),
            now: now,
            logger: logger,
            tracer: tracer,
            scheduleOwner: deliveryRepository.replicaID
        )
        mutablePushes.retentionMetrics = RetentionMetrics(factory: metrics)
        let pushes = mutablePushes
        let eraser = DispatchUserEraser(
            erasure: SQLDispatchErasure(database: database.sql), hub: hub, recipients: pushes.recipients, audit: audit,
            logger: logger)
        let revocations = RevokedSessionsFeed(auth: auth, tokens: tokens, now: now)
        let webhookRepository = SQLWebhookRepository(database: database.sql)
        let webhookSecrets = WebhookSecretSealer(keys: configuration.appsKeys, now: now)
        let webhookSender = WebhookSender(
            repository: webhookRepository,
            feed: WebhookEventFeed(
                database: database.sql, repository: webhookRepository,
                receipts: { try await storeWriter.receiptsSince(after: $0, limit: $1) },
                configuration: configuration.webhooks, now: now, logger: logger),
            secretSealer: webhookSecrets, configuration: configuration.webhooks, owner: deliveryRepository.replicaID,
            now: now, logger: logger, metrics: WebhookMetrics(factory: metrics), audit: audit)
        let sweep = DirectSweep(
            hub: hub, deliveries: deliveryRepository, revocations: revocations, now: now, logger: logger)
        let doorbells = Dictionary(uniqueKeysWithValues: workers.map { ($0.platform, $0.doorbell) })
        // The database comes first so that graceful shutdown stops it last; replicas wake each other through it.
        let clusterServices: [any Service] =
            (given == nil ? database.services : [])
            + (database.postgres.map {
                [
                    DispatchWakeRelay(
                        database: $0, hub: hub, doorbells: doorbells,
                        appsChanged: {
                            do {
                                try await appLoader.refresh()
                            } catch {
                                logger.warning("apps.refresh_failed", metadata: ["error": "\(error)"])
                            }
                        }, userErased: { await eraser.forget(digest: $0) }, logger: logger),
                    ReplicaLease(
                        deliveries: deliveryRepository, timeout: configuration.replicaLeaseTimeout,
                        forgetAfter: max(configuration.idempotencyTimeout, .seconds(3_600)), now: now, logger: logger),
                ] as [any Service]
            }
                ?? [])
        let services: [any Service] =
            clusterServices + [
                audit,
                SigningKeyLoader(verifier: verifier, logger: logger),
                appLoader,
                revocationSender,
                PeriodicService(name: "dispatch.expiry", interval: configuration.expiryInterval, logger: logger) {
                    try await pushes.expireAndPurge()
                    _ = try await webhookRepository.purge(
                        before: now().adding(.zero - configuration.webhooks.retention))
                },
                // Scheduled sends that came due: each claimed by one replica, published in the store, then queued.
                PeriodicService(
                    name: "dispatch.schedule", interval: configuration.scheduleInterval, logger: logger
                ) {
                    _ = try await pushes.sendDueSchedules()
                },
                // One keepalive timer for every event stream: an idle stream holds no task of its own.
                PeriodicService(
                    name: "dispatch.direct.keepalive", interval: configuration.keepaliveInterval, logger: logger
                ) {
                    await hub.keepalive()
                },
                PeriodicService(name: "dispatch.direct.sweep", interval: configuration.sweepInterval, logger: logger) {
                    try await sweep.run()
                },
                // The queue metrics (depth, age of the oldest waiting job), read on one schedule for every platform.
                PeriodicService(name: "dispatch.queue.metrics", interval: configuration.sweepInterval, logger: logger) {
                    [deliveryRepository, providers] in
                    let current = now()
                    dispatchMetrics.recordQueue(
                        try await deliveryRepository.queueStatistics(now: current), platforms: providers.platforms,
                        now: current)
                },
            ] + workers + [webhookSender]
        return DispatchComponents(
            database: database,
            verifier: verifier,
            devices: devices,
            pushes: pushes,
            hub: hub,
            providers: providers,
            dispatcher: DispatchMethods.dispatcher(
                devices: devices, pushes: pushes, verifier: verifier,
                apps: AppsMethods(
                    administration: AppAdministration(
                        repository: appRepository, keys: configuration.appsKeys, makeProviders: makeAppProviders,
                        now: now, deploymentLimits: (configuration.maxPayloadBytes, configuration.maxTTLSeconds)),
                    loader: appLoader, catalog: catalog, audit: audit),
                webhooks: WebhookMethods(
                    endpoints: WebhookEndpoints(
                        repository: webhookRepository, secrets: webhookSecrets, configuration: configuration.webhooks,
                        defaultAppID: configuration.defaultAppID, now: now, recorded: { webhookSender.wake() }),
                    audit: audit),
                maxBatchLength: configuration.server.maxBatchLength, audit: audit, eraser: eraser),
            services: services,
            workers: workers,
            appLoader: appLoader,
            revocations: revocationSender,
            tracer: tracer,
            audit: audit,
            webhookSender: webhookSender,
            sweep: sweep,
            eventRoute: DirectEventRoute(
                verifier: verifier, devices: deviceRepository, deliveries: deliveryRepository, hub: hub,
                revocations: revocations, now: now,
                metrics: dispatchMetrics, deliveryCounts: dispatchMetrics.deliveries(.direct, apps: catalog),
                tracing: tracing,
                logger: logger),
            webAssetRoute: WebAssetRoute(inbox: configuration.inbox),
            appsKeyWrapping: configuration.appsKeys.wrapping
        )
    }

    /// Refuses a provider for `direct` (built in) and two providers for one platform (one worker per platform).
    static func checkRemote(_ providers: [any RemotePushProvider]) throws {
        var seen: Set<Platform> = []
        for provider in providers {
            guard provider.platform != .direct else {
                throw ConfigurationError("the direct channel is built in: a remote provider must not serve 'direct'")
            }
            guard seen.insert(provider.platform).inserted else {
                throw ConfigurationError("two push providers for '\(provider.platform)': configure one per platform")
            }
        }
    }

    /// The readiness checks `GET /health` reports: `database` and `keys`.
    public func health() async -> [String: String] {
        [
            "database": await database.readiness(),
            "keys": await verifier.readiness,
        ].merging(await HardwareModuleHealth.checks([appsKeyWrapping?.probe, audit.hardwareProbe])) { first, _ in first
        }
    }

    /// The apps' browser origins, allowed by CORS beside `SECUREPUSH_CORS_ORIGINS` (a preflight names no app).
    public var moreCORSOrigins: (@Sendable (String) -> Bool)? {
        { [catalog = providers.catalog] in catalog.allowsOrigin($0) }
    }

    /// The direct channel's `GET /devices/{deviceId}/events` route, and the browser SDK and web inbox
    /// (`/sdk/…`, `/inbox/…`).
    public var routes: [RPCServerRoute] { [eventRoute.route, webAssetRoute.route] }

    /// Ends every event stream: they never end by themselves, so they end first and the listener's drain is not held
    /// up by them.
    public func beforeShutdown() async {
        await hub.closeAll()
    }
}
