import Foundation
import RPCServer
import ServiceCore
import SharedModels

/// Everything push-dispatch needs to know to run, read from `SECUREPUSH_*` variables or given by tests.
public struct DispatchConfiguration: ServiceDatabaseConfiguration, Sendable {
    /// The default port (`SECUREPUSH_DISPATCH_PORT`).
    public static let defaultPort = SettingCatalog.dispatchPort.defaultValue
    /// The default of `SECUREPUSH_MAX_DEVICES_PER_USER`.
    public static let defaultMaxDevicesPerUser = 20
    /// The default of `SECUREPUSH_MAX_STREAMS_PER_DEVICE`.
    public static let defaultMaxStreamsPerDevice = 2

    /// Where and how the service listens.
    public var server: RPCServerConfiguration
    /// The SQLite file; `nil` keeps everything in memory (tests).
    public var databasePath: String?
    /// PostgreSQL instead of SQLite (`SECUREPUSH_DATABASE_URL`), for several replicas.
    public var postgresURL: PostgresURL?
    /// When SQLite commits reach the disk (`SECUREPUSH_SQLITE_SYNCHRONOUS`).
    public var sqliteSynchronous: SQLiteSynchronous = .normal
    /// How long a `push.send` may hold its idempotency key before a retry takes it over (its holder crashed).
    public var idempotencyTimeout: Duration = .seconds(SettingCatalog.idempotencyTimeout.defaultValue)
    /// On PostgreSQL, how long this replica's lease outlives its last renewal (renewed every fifth of it;
    /// `SECUREPUSH_REPLICA_LEASE`): a send left pending by a replica that died is taken over by a retry once its
    /// lease lapsed, at most this long after the death, instead of after `idempotencyTimeout`.
    public var replicaLeaseTimeout: Duration = .seconds(SettingCatalog.replicaLease.defaultValue)
    /// Furthest ahead a `push.send` `sendAt` may be (`SECUREPUSH_MAX_SCHEDULE`).
    public var maxScheduleSeconds = SettingCatalog.maxSchedule.defaultValue
    /// How long a send's record and deliveries are kept after it expired (`SECUREPUSH_RETAIN_DELIVERIES`), seconds.
    public var deliveryRetentionSeconds = SettingCatalog.retainDeliveries.defaultValue
    /// How long an idempotency key is kept (`SECUREPUSH_RETAIN_IDEMPOTENCY_KEYS`), seconds; 0: with its send.
    public var idempotencyRetentionSeconds = SettingCatalog.retainIdempotencyKeys.defaultValue
    /// How often due scheduled sends are looked for (a scheduled send goes out within this of its time).
    public var scheduleInterval: Duration = .milliseconds(250)
    /// push-dispatch's own client id at auth (a client with scope `store:write`).
    public var dispatchClientID: String
    /// push-dispatch's own client secret at auth.
    public var dispatchClientSecret: String
    /// Largest payload `push.send` accepts, in UTF-8 bytes (checked before the store is called).
    public var maxPayloadBytes: Int
    /// Longest lifetime `push.send` accepts, in seconds.
    public var maxTTLSeconds: Int
    /// The lifetime of a notification sent without `ttlSeconds` (`SECUREPUSH_DEFAULT_TTL`, which the store applies):
    /// push-dispatch sends it explicitly, shortened to the app's own longest lifetime, for an app that has one.
    public var defaultTTLSeconds: Int = 604_800
    /// How often an idle event stream writes `: keepalive` (from memory: no database work).
    public var keepaliveInterval: Duration
    /// How often one sweep for the whole service wakes the event streams whose device has queued jobs nobody woke
    /// them for (a wake-up lost between replicas) and ends the streams of signed-out sessions
    /// (`SECUREPUSH_DISPATCH_SWEEP_INTERVAL`).
    public var sweepInterval: Duration = .seconds(SettingCatalog.dispatchSweepInterval.defaultValue)
    /// The longest device revocations wait in the outbox while idle before the store is asked again (revocations made
    /// on this replica are sent at once); 1 s.
    public var revocationPollInterval: Duration = .seconds(1)
    /// Most devices one user may register (`SECUREPUSH_MAX_DEVICES_PER_USER`).
    public var maxDevicesPerUser: Int = DispatchConfiguration.defaultMaxDevicesPerUser
    /// Most open event streams per device; a new one closes the oldest (`SECUREPUSH_MAX_STREAMS_PER_DEVICE`).
    public var maxStreamsPerDevice: Int = DispatchConfiguration.defaultMaxStreamsPerDevice
    /// The services' URLs as browsers reach them, for the web inbox (`/inbox/config.json` and its CSP).
    /// The app an omitted `appId` means (`SECUREPUSH_DEFAULT_APP`).
    public var defaultAppID: String = AppCatalog.environmentAppID
    /// How often the apps' revisions are read (`SECUREPUSH_APPS_REFRESH_INTERVAL`).
    public var appsRefreshInterval: Duration = .seconds(SettingCatalog.appsRefreshInterval.defaultValue)
    /// The key apps' credentials are sealed with (`SECUREPUSH_APPS_KEY_FILE`).
    public var appsKeys: AppsKeySource = .keys(.generate())
    /// How webhooks are delivered (`SECUREPUSH_WEBHOOK_*`).
    public var webhooks = WebhookConfiguration()
    /// The audit trail's key, checkpoint directory and cadence (`SECUREPUSH_AUDIT_*`).
    public var audit = AuditConfiguration()
    public var inbox = WebInboxConfiguration(
        authURL: SettingCatalog.authURL.defaultValue!, storeURL: SettingCatalog.storeURL.defaultValue!)
    /// How often deliveries past expiry are marked `expired` and old sends purged.
    public var expiryInterval: Duration
    /// How remote providers' delivery workers run: concurrency, leases, retries.
    public var delivery: DeliveryConfiguration

    /// A configuration for tests and embedding: in-memory database, port 0 and the documented defaults.
    public init(
        server: RPCServerConfiguration = RPCServerConfiguration(port: 0),
        databasePath: String? = nil,
        dispatchClientID: String,
        dispatchClientSecret: String,
        maxPayloadBytes: Int = SettingCatalog.maxPayloadBytes.defaultValue,
        maxTTLSeconds: Int = SettingCatalog.maxTTL.defaultValue,
        keepaliveInterval: Duration = .seconds(SettingCatalog.dispatchKeepalive.defaultValue),
        expiryInterval: Duration = .seconds(SettingCatalog.dispatchExpiryInterval.defaultValue),
        delivery: DeliveryConfiguration = DeliveryConfiguration(),
        postgresURL: PostgresURL? = nil
    ) {
        self.postgresURL = postgresURL
        self.server = server
        self.databasePath = databasePath
        self.dispatchClientID = dispatchClientID
        self.dispatchClientSecret = dispatchClientSecret
        self.maxPayloadBytes = maxPayloadBytes
        self.maxTTLSeconds = maxTTLSeconds
        self.keepaliveInterval = keepaliveInterval
        self.expiryInterval = expiryInterval
        self.delivery = delivery
    }

    /// Reads the configuration from the environment; throws `ConfigurationError` naming the variable that is wrong.
    ///
    /// The shared server settings on `SECUREPUSH_DISPATCH_PORT`, the database (`dispatch.sqlite` in
    /// `SECUREPUSH_DATA_DIR`), `SECUREPUSH_DISPATCH_CLIENT_ID` and `SECUREPUSH_DISPATCH_CLIENT_SECRET` (or
    /// `…_SECRET_FILE`; required), push-dispatch's own settings and the delivery settings
    /// `DeliveryConfiguration(environment:)` reads; their defaults and ranges are declared in ``SettingCatalog``
    /// (docs/configuration.md).
    public init(environment: ServiceEnvironment) throws {
        guard let clientID = environment.string("SECUREPUSH_DISPATCH_CLIENT_ID"),
            let clientSecret = try environment.secret("SECUREPUSH_DISPATCH_CLIENT_SECRET")
        else {
            throw ConfigurationError(
                "SECUREPUSH_DISPATCH_CLIENT_ID and SECUREPUSH_DISPATCH_CLIENT_SECRET must be set: push-dispatch calls "
                    + "store.put as this client (auth provisions it from the same two variables)")
        }
        self.init(
            server: try environment.server(port: SettingCatalog.dispatchPort),
            databasePath: URL(fileURLWithPath: environment.dataDirectory).appendingPathComponent("dispatch.sqlite")
                .path,
            dispatchClientID: clientID,
            dispatchClientSecret: clientSecret,
            maxPayloadBytes: try environment.int(SettingCatalog.maxPayloadBytes),
            maxTTLSeconds: try environment.int(SettingCatalog.maxTTL),
            keepaliveInterval: .seconds(
                try environment.int(SettingCatalog.dispatchKeepalive)),
            expiryInterval: .seconds(
                try environment.int(SettingCatalog.dispatchExpiryInterval)),
            delivery: try DeliveryConfiguration(environment: environment),
            postgresURL: try environment.postgresURL()
        )
        idempotencyTimeout = .seconds(
            try environment.int(SettingCatalog.idempotencyTimeout))
        replicaLeaseTimeout = .seconds(try environment.int(SettingCatalog.replicaLease))
        maxScheduleSeconds = try environment.int(SettingCatalog.maxSchedule)
        deliveryRetentionSeconds = try environment.int(SettingCatalog.retainDeliveries)
        idempotencyRetentionSeconds = try environment.int(SettingCatalog.retainIdempotencyKeys)
        sqliteSynchronous = try environment.sqliteSynchronous()
        defaultTTLSeconds = try environment.defaultTTL()
        sweepInterval = .seconds(try environment.int(SettingCatalog.dispatchSweepInterval))
        maxDevicesPerUser = try environment.int(
            "SECUREPUSH_MAX_DEVICES_PER_USER", default: Self.defaultMaxDevicesPerUser, in: 1...100_000)
        maxStreamsPerDevice = try environment.int(
            "SECUREPUSH_MAX_STREAMS_PER_DEVICE", default: Self.defaultMaxStreamsPerDevice, in: 1...100)
        inbox = try WebInboxConfiguration(environment: environment)
        defaultAppID = environment.string(SettingCatalog.defaultApp)!
        guard AppID.isValid(defaultAppID) else {
            throw ConfigurationError(
                "SECUREPUSH_DEFAULT_APP \(AppID.requirement), got '\(defaultAppID.prefix(64))'")
        }
        appsRefreshInterval = .seconds(try environment.int(SettingCatalog.appsRefreshInterval))
        appsKeys = try AppsKeySource.fromEnvironment(environment)
        webhooks = try WebhookConfiguration(environment: environment)
        audit = try AuditConfiguration(environment: environment)
    }
}
