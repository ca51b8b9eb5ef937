import Foundation
import GRDB
import Logging
import Metrics
import NIOPosix
import RPCServer
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Every part of a running auth service, wired together: what `buildAuthApplication` serves, and what tests
/// drive without sockets (`RPCClient(transport: InProcessTransport(dispatcher: { components.dispatcher }, ...))`).
public struct AuthComponents: RPCServiceComponents {
    /// The configuration the components were built from.
    public let configuration: AuthConfiguration
    /// The database (SQLite, or PostgreSQL running as a lifecycle service before the components are made).
    public let database: ServiceDatabase
    /// The domain service.
    public let service: AuthenticationService
    /// The audit trail: sign-ins, registrations, client tokens, refreshes, sign-outs, key loads.
    public let audit: AuditTrail
    /// The JSON-RPC methods of `service`.
    public let dispatcher: RPCDispatcher
    /// Background work: the audit trail's writer, the purge of expired refresh tokens and attempt counters. The database is not among them: it
    /// runs before the components are made (auth reads its signing keys from it), first in the service group.
    public let services: [any Service]

    /// The open SQLite database, when auth runs on SQLite.
    public var sqlite: (any DatabaseWriter)? { database.sqlite }
    /// The PostgreSQL database, when auth runs on PostgreSQL.
    public var postgres: PostgresServiceDatabase? { database.postgres }

    /// Chooses the signing key, provisions the configured clients and builds the dispatcher, on `database`.
    ///
    /// Throws `ConfigurationError` for configurations that must not start (e.g. production without a signing key file).
    /// - Parameter database: auth's database (``ServiceDatabase/open(_:schema:logger:)``); a PostgreSQL one must be running.
    /// - Parameter now: the clock (tests move it).
    /// - Parameter metrics: where auth's metrics are recorded.
    /// - Parameter erasurePeers: push-dispatch and the store, where `users.delete` erases a user after auth; `nil`
    ///   answers `users.delete` with `-32050`.
    public static func make(
        configuration: AuthConfiguration,
        database: ServiceDatabase,
        logger: Logger,
        passwordThreadPool: NIOThreadPool = .singleton,
        now: @escaping @Sendable () -> Date = Date.init,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        erasurePeers: (any ErasurePeers)? = nil
    ) async throws -> AuthComponents {
        try configuration.validate()
        let authMetrics = AuthMetrics(factory: metrics)
        let repository = SQLAuthRepository(database: database.sql)
        let audit = AuditTrail(
            repository: SQLAuditRepository(database: database.sql, schema: AuthMigrations.schema),
            keyring: CachedAuditKeyring(SQLAuditKeyring(database: database.sql, now: now)),
            signingKey: try configuration.audit.loadKey(logger: logger), configuration: configuration.audit,
            logger: logger, metrics: metrics)
        let postgres = database.postgres
        let hasher = try await PasswordHasher(cost: configuration.bcryptCost, threadPool: passwordThreadPool)
        let moduleKey = try configuration.signingKeyURI.map { uri throws(ConfigurationError) in
            try configuration.hardwareModule.signingKey(uri, variable: "SECUREPUSH_AUTH_SIGNING_KEY")
        }
        let loadSigner = {
            try await AccessTokenSigner.load(
                keyFile: configuration.signingKeyFile,
                moduleKey: moduleKey,
                isProduction: configuration.isProduction,
                repository: repository,
                tokenTTL: configuration.accessTokenTTL,
                now: now(),
                logger: logger
            )
        }
        // Replicas starting together take turns, so the second reuses the key the first stored instead of racing it.
        let signer: AccessTokenSigner
        if let postgres {
            signer = try await postgres.withAdvisoryLock("signing-key") { try await loadSigner() }
        } else {
            signer = try await loadSigner()
        }
        HardwareModuleMetrics.observe([signer.currentKey.moduleToken, audit.hardwareToken], factory: metrics)
        let clients = ClientRegistry(
            repository: repository,
            hasher: hasher,
            minimumSecretLength: configuration.minimumClientSecretLength,
            now: now
        )
        audit.record("auth.signing_key.loaded", ["keyId": .text(signer.currentKey.kid)])
        try await provision(configuration: configuration, clients: clients, logger: logger, audit: audit)
        // One process on SQLite counts in memory; replicas share their counts in PostgreSQL.
        let counters: any AttemptCounters =
            postgres == nil ? InMemoryAttemptCounters() : SQLAttemptCounters(database: database.sql)
        var service = AuthenticationService(
            repository: repository,
            signer: signer,
            clients: clients,
            hasher: hasher,
            limiter: {
                var limiter = SignInLimiter(
                    counters: counters,
                    maxFailures: configuration.maxFailedLogins,
                    window: TimeInterval(configuration.failedLoginWindow),
                    requestsPerMinute: configuration.authRateLimit,
                    logger: logger,
                    metrics: authMetrics
                )
                limiter.passwordChecksPerMinute = configuration.passwordChecksPerMinutePerAddress
                return limiter
            }(),
            hashing: PasswordHashingGate(
                maxConcurrent: configuration.passwordConcurrency,
                maxQueued: configuration.passwordQueueLength,
                maxPerAddress: configuration.passwordChecksPerAddress,
                logger: logger,
                metrics: authMetrics
            ),
            selfRegistration: configuration.selfRegistration,
            refreshTokenTTL: configuration.refreshTokenTTL,
            logger: logger,
            metrics: authMetrics,
            audit: audit,
            now: now
        )
        let erasure = UserErasure(
            database: database.sql, peers: erasurePeers, signer: signer, audit: audit, now: now, logger: logger)
        service.erasure = erasure
        service.erasureSignInMaxAge = TimeInterval(configuration.erasureSignInMaxAge)
        service.revokedSessionRetention = TimeInterval(configuration.revokedSessionRetention)
        service.retentionMetrics = RetentionMetrics(factory: metrics)
        return AuthComponents(
            configuration: configuration,
            database: database,
            service: service,
            audit: audit,
            dispatcher: AuthMethods.dispatcher(service: service, maxBatchLength: configuration.server.maxBatchLength),
            // The trail first: graceful shutdown stops it last, after every action it records.
            services: [
                audit, purger(service: service, interval: configuration.purgeInterval, logger: logger),
                // Erasures a restart or an unreachable service left unfinished.
                PeriodicService(name: "auth.erasure.resume", interval: .seconds(5), logger: logger) {
                    try await erasure.resumeUnfinished()
                },
            ]
        )
    }

    /// Readiness checks for `GET /health`.
    public func health() async -> [String: String] {
        ["database": await database.readiness()].merging(
            await HardwareModuleHealth.checks([service.signer.currentKey.moduleProbe, audit.hardwareProbe])
        ) { first, _ in first }
    }

    /// Purges expired refresh tokens and attempt counters every `interval`.
    static func purger(service: AuthenticationService, interval: Duration, logger: Logger) -> PeriodicService {
        PeriodicService(name: "auth.purge", interval: interval, logger: logger) {
            let purged = try await service.purgeExpiredTokens()
            let counters = try await service.limiter.purgeExpired(at: service.now())
            if purged + counters > 0 {
                logger.debug(
                    "auth.purge.done",
                    metadata: ["auth.purged_tokens": "\(purged)", "auth.purged_counters": "\(counters)"])
            }
        }
    }

    /// Creates or updates the clients named by `SECUREPUSH_BOOTSTRAP_CLIENT_*` (`push:send webhooks:manage`),
    /// `SECUREPUSH_DISPATCH_CLIENT_*` (`store:write sessions:read users:read audit:keys`: it stores payloads and
    /// checks recipients exist) and `SECUREPUSH_STORE_CLIENT_*` (`audit:keys`).
    static func provision(
        configuration: AuthConfiguration, clients: ClientRegistry, logger: Logger, audit: AuditTrail? = nil
    ) async throws {
        // push-dispatch writes payloads to the store, checks recipients exist, and ends event streams of signed-out
        // sessions; it and the store pseudonymise their audit trails with auth's keys.
        let wanted: [(ClientRegistry.Credentials?, [String])] = [
            (configuration.bootstrapClient, [Scope.pushSend, Scope.webhooksManage]),
            (configuration.dispatchClient, [Scope.storeWrite, Scope.sessionsRead, Scope.usersRead, Scope.auditKeys]),
            (configuration.storeClient, [Scope.auditKeys]),
        ]
        for case (let credentials?, let scopes) in wanted {
            try await clients.createOrUpdateClient(
                id: credentials.clientId, scopes: scopes, secret: credentials.secret)
            audit?.record("auth.client.provisioned", ["client": .text(credentials.clientId), "scopes": .texts(scopes)])
            logger.debug(
                "auth.client.provisioned",
                metadata: [
                    LogMetadataKey.clientID: "\(credentials.clientId)",
                    "auth.scopes": "\(scopes.joined(separator: " "))",
                ])
        }
    }
}
