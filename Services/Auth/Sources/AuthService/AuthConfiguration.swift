import NIOCore
import RPCServer
import ServiceCore

/// Everything the auth service can be configured with.
///
/// The memberwise initialiser has defaults for tests (ephemeral port, in-memory database);
/// `init(environment:)` reads the `SECUREPUSH_*` variables.
public struct AuthConfiguration: Sendable {
    /// Where to listen, TLS and request limits.
    public var server: RPCServerConfiguration
    /// The SQLite file; `nil` keeps everything in memory (tests).
    public var databasePath: String?
    /// PostgreSQL instead of SQLite (`SECUREPUSH_DATABASE_URL`), for several replicas.
    public var postgresURL: PostgresURL?
    /// When SQLite commits reach the disk (`SECUREPUSH_SQLITE_SYNCHRONOUS`).
    public var sqliteSynchronous: SQLiteSynchronous = .normal
    /// `SECUREPUSH_ENV=production`: no generated signing key, client secrets of at least 32 bytes.
    public var isProduction: Bool
    /// A PEM file holding the ES256 signing key; `nil` generates one and keeps it in the database (not in production).
    public var signingKeyFile: String?
    /// Access token lifetime in seconds.
    public var accessTokenTTL: Int
    /// Refresh token lifetime in seconds (each rotation starts a new one).
    public var refreshTokenTTL: Int
    /// bcrypt cost for passwords and client secrets, 10...16.
    public var bcryptCost: Int
    /// Provisioned at start with scope `push:send` (an app backend).
    public var bootstrapClient: ClientRegistry.Credentials?
    /// Provisioned at start with scope `store:write` (push-dispatch's own client).
    public var dispatchClient: ClientRegistry.Credentials?
    /// Failed sign-ins per (username or client id, client address) within `failedLoginWindow` before `-32029`; one
    /// address may fail 5× as often over all accounts; an account failing 5× as often is slowed. `0` disables all.
    public var maxFailedLogins: Int
    /// Seconds a run of failed sign-ins is remembered, counted from the first one.
    public var failedLoginWindow: Int
    /// Unauthenticated calls (`auth.register`, `.login`, `.refresh`, `.clientToken`) per minute per client address;
    /// `0` turns the limit off (benchmarks).
    public var authRateLimit: Int
    /// Password checks (bcrypt) waiting for a thread before more get `-32029` (`SECUREPUSH_BCRYPT_QUEUE`).
    public var passwordQueueLength: Int
    /// Password checks running at once: one per core, the size of the thread pool bcrypt runs on.
    public var passwordConcurrency: Int = System.coreCount
    /// Password checks one client address may have running or waiting (`SECUREPUSH_BCRYPT_PER_ADDRESS`).
    public var passwordChecksPerAddress: Int = 4
    /// Whether anyone may create an account with `auth.register` (`SECUREPUSH_SELF_REGISTRATION`).
    public var selfRegistration: Bool
    /// How often expired refresh tokens are purged.
    public var purgeInterval: Duration

    /// The allowed bcrypt costs: below 10 is too weak, above 16 makes each sign-in take seconds.
    public static let bcryptCostRange = 10...16

    public init(
        server: RPCServerConfiguration = RPCServerConfiguration(port: 0),
        databasePath: String? = nil,
        isProduction: Bool = false,
        signingKeyFile: String? = nil,
        accessTokenTTL: Int = 900,
        refreshTokenTTL: Int = 2_592_000,
        bcryptCost: Int = 12,
        bootstrapClient: ClientRegistry.Credentials? = nil,
        dispatchClient: ClientRegistry.Credentials? = nil,
        maxFailedLogins: Int = 10,
        failedLoginWindow: Int = 300,
        authRateLimit: Int = 120,
        passwordQueueLength: Int = 16,
        selfRegistration: Bool = true,
        purgeInterval: Duration = .seconds(3600)
    ) {
        self.server = server
        self.databasePath = databasePath
        self.isProduction = isProduction
        self.signingKeyFile = signingKeyFile
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        self.bcryptCost = bcryptCost
        self.bootstrapClient = bootstrapClient
        self.dispatchClient = dispatchClient
        self.maxFailedLogins = maxFailedLogins
        self.failedLoginWindow = failedLoginWindow
        self.authRateLimit = authRateLimit
        self.passwordQueueLength = passwordQueueLength
        self.selfRegistration = selfRegistration
        self.purgeInterval = purgeInterval
    }

    /// The auth database file inside a data directory: `<dataDirectory>/auth.sqlite`.
    public static func databasePath(inDataDirectory dataDirectory: String) -> String {
        dataDirectory.hasSuffix("/") ? dataDirectory + "auth.sqlite" : dataDirectory + "/auth.sqlite"
    }

    /// Shortest client secret an operator may choose: 32 bytes in production, anything non-empty otherwise.
    public var minimumClientSecretLength: Int { isProduction ? ProductionPolicy.minimumSecretBytes : 1 }
}
