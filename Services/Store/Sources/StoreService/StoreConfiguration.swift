import Foundation
import RPCServer
import ServiceCore

/// Everything the notification store needs to know to run, read from `SECUREPUSH_*` variables or given by tests.
public struct StoreConfiguration: ServiceDatabaseConfiguration, Sendable {
    /// The default port (`SECUREPUSH_STORE_PORT`).
    public static let defaultPort = SettingCatalog.storePort.defaultValue

    /// Where and how the service listens.
    public var server: RPCServerConfiguration
    /// The SQLite file; `nil` keeps everything in memory (tests). Unused when ``postgresURL`` is set.
    public var databasePath: String?
    /// When SQLite commits reach the disk (`SECUREPUSH_SQLITE_SYNCHRONOUS`).
    public var sqliteSynchronous: SQLiteSynchronous = .normal
    /// PostgreSQL instead of SQLite (`SECUREPUSH_DATABASE_URL`), for several replicas.
    public var postgresURL: PostgresURL?
    /// Largest payload accepted by `store.put`, in UTF-8 bytes.
    public var maxPayloadBytes: Int
    /// Lifetime of a notification when `store.put` gives no `ttlSeconds`.
    public var defaultTTLSeconds: Int
    /// Longest lifetime `store.put` accepts.
    public var maxTTLSeconds: Int
    /// How often expired notifications are deleted from the database.
    public var purgeInterval: Duration
    /// The PKCS#11 key the store key file's keys are wrapped by (`SECUREPUSH_STORE_KEY_WRAPPING_KEY`); `nil`: in clear.
    public var storeKeyWrapping: EncryptionKeyWrapping?
    /// The AES-256 keys payloads are encrypted under at rest (`SECUREPUSH_STORE_KEY_FILE`).
    public var storeKeys: StoreKeySource
    /// Most device proofs one device may have accepted within a proof's lifetime (about 2 minutes;
    /// `SECUREPUSH_PROOFS_PER_DEVICE`); beyond it that device gets `-32029` `{quota: "proofsPerDevice"}`.
    public var proofsPerDevice: Int = SettingCatalog.proofsPerDevice.defaultValue
    /// Fetches with a device proof one client address may make per minute (`SECUREPUSH_STORE_PROOF_RATE_LIMIT`);
    /// beyond it that address gets `-32029` `{quota: "proofsPerAddress"}`.
    public var proofRateLimit: Int = SettingCatalog.storeProofRateLimit.defaultValue
    /// How long a receipt is kept after its notification expired (`SECUREPUSH_RETAIN_RECEIPTS`), seconds.
    public var receiptRetentionSeconds = SettingCatalog.retainReceipts.defaultValue
    /// The audit trail's key, checkpoint directory and cadence (`SECUREPUSH_AUDIT_*`).
    public var audit = AuditConfiguration()
    /// The store's own client of auth (`SECUREPUSH_STORE_CLIENT_ID` and `…_SECRET`), with which it asks for the keys
    /// its audit trail pseudonymises people with; unset (development only), the trail uses a key of its own per day.
    public var storeClient: (id: String, secret: String)?

    /// A configuration for tests and embedding: in-memory database, port 0 and the documented defaults.
    public init(
        server: RPCServerConfiguration = RPCServerConfiguration(port: 0),
        databasePath: String? = nil,
        maxPayloadBytes: Int = SettingCatalog.maxPayloadBytes.defaultValue,
        defaultTTLSeconds: Int = 604_800,
        maxTTLSeconds: Int = SettingCatalog.maxTTL.defaultValue,
        purgeInterval: Duration = .seconds(SettingCatalog.storePurgeInterval.defaultValue),
        postgresURL: PostgresURL? = nil,
        storeKeys: StoreKeySource = .keys(.generate())
    ) {
        self.storeKeys = storeKeys
        self.postgresURL = postgresURL
        self.server = server
        self.databasePath = databasePath
        self.maxPayloadBytes = maxPayloadBytes
        self.defaultTTLSeconds = defaultTTLSeconds
        self.maxTTLSeconds = maxTTLSeconds
        self.purgeInterval = purgeInterval
    }

    /// Reads the configuration from the environment; throws `ConfigurationError` naming the variable that is wrong.
    ///
    /// The shared server settings on `SECUREPUSH_STORE_PORT`, the database (`store.sqlite` in `SECUREPUSH_DATA_DIR`),
    /// the store's own settings and `SECUREPUSH_STORE_KEY_FILE` (see ``storeKeySource(environment:)``); their
    /// defaults and ranges are declared in ``SettingCatalog`` (docs/configuration.md).
    public init(environment: ServiceEnvironment) throws {
        let maxTTL = try environment.int(SettingCatalog.maxTTL)
        let dataDirectory = URL(fileURLWithPath: environment.dataDirectory)
        self.init(
            server: try environment.server(port: SettingCatalog.storePort),
            databasePath: dataDirectory.appendingPathComponent("store.sqlite").path,
            maxPayloadBytes: try environment.int(SettingCatalog.maxPayloadBytes),
            defaultTTLSeconds: try environment.defaultTTL(),
            maxTTLSeconds: maxTTL,
            purgeInterval: .seconds(
                try environment.int(SettingCatalog.storePurgeInterval)),
            postgresURL: try environment.postgresURL(),
            storeKeys: try Self.storeKeySource(environment: environment)
        )
        sqliteSynchronous = try environment.sqliteSynchronous()
        storeKeyWrapping = try EncryptionKeyWrapping.fromEnvironment(
            environment, variable: "SECUREPUSH_STORE_KEY_WRAPPING_KEY")
        proofsPerDevice = try environment.int(SettingCatalog.proofsPerDevice)
        proofRateLimit = try environment.int(SettingCatalog.storeProofRateLimit)
        receiptRetentionSeconds = try environment.int(SettingCatalog.retainReceipts)
        audit = try AuditConfiguration(environment: environment)
        switch (
            environment.string("SECUREPUSH_STORE_CLIENT_ID"), try environment.secret("SECUREPUSH_STORE_CLIENT_SECRET")
        ) {
        case (nil, nil):
            guard !environment.isProduction else {
                throw ConfigurationError(
                    "SECUREPUSH_STORE_CLIENT_ID and SECUREPUSH_STORE_CLIENT_SECRET must be set when "
                        + "SECUREPUSH_ENV=production: the store's audit trail pseudonymises people with keys it asks "
                        + "auth for (auth provisions the client with scope audit:keys)")
            }
        case (let id?, let secret?): storeClient = (id, secret)
        default:
            throw ConfigurationError(
                "SECUREPUSH_STORE_CLIENT_ID and SECUREPUSH_STORE_CLIENT_SECRET must be set together")
        }
    }

    /// `SECUREPUSH_STORE_KEY_FILE` when set (read at start, not here); otherwise `<data dir>/store-keys`, generated on
    /// first start — refused in production, where keys must be managed (and backed up) outside the data directory.
    public static func storeKeySource(environment: ServiceEnvironment) throws(ConfigurationError) -> StoreKeySource {
        if let path = environment.string("SECUREPUSH_STORE_KEY_FILE") { return .file(path) }
        guard !environment.isProduction else {
            throw ConfigurationError(
                "SECUREPUSH_STORE_KEY_FILE must be set when SECUREPUSH_ENV=production: payloads are encrypted at rest "
                    + "under its keys. Create one with `securepush store-keys rotate --key-file /etc/securepush/store-keys` "
                    + "(or `securepush certs --secrets-dir DIR`), keep a backup, and give every store replica the same file"
            )
        }
        return .generatedFile(
            URL(fileURLWithPath: environment.dataDirectory).appendingPathComponent(StoreKeySource.generatedFileName)
                .path)
    }
}
