import NIOCore
import PKCS11
import RPCServer
import ServiceCore

/// Everything the auth service can be configured with.
///
/// The memberwise initialiser has defaults for tests (ephemeral port, in-memory database);
/// `init(environment:)` reads the `SECUREPUSH_*` variables.
public struct AuthConfiguration: ServiceDatabaseConfiguration, Sendable {
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
    /// `SECUREPUSH_AUTH_SIGNING_KEY=pkcs11:…`: the signing key in a PKCS#11 module (wins over nothing: setting both
    /// this and a file is refused).
    public var signingKeyURI: PKCS11URI?
    /// `SECUREPUSH_PKCS11_MODULE` and `SECUREPUSH_PKCS11_PIN_FILE`, for keys in a module.
    public var hardwareModule = HardwareModuleConfiguration()
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
    /// The store's own client (`SECUREPUSH_STORE_CLIENT_*`), provisioned with `audit:keys`.
    public var storeClient: ClientRegistry.Credentials?
    /// The audit trail's key, checkpoint directory and cadence (`SECUREPUSH_AUDIT_*`).
    public var audit = AuditConfiguration()
    /// How recent a user's password sign-in must be for them to erase their own account
    /// (`SECUREPUSH_ERASURE_SIGNIN_MAX_AGE`), seconds.
    public var erasureSignInMaxAge = SettingCatalog.erasureSignInMaxAge.defaultValue
    /// How long a revoked session is kept (`SECUREPUSH_RETAIN_REVOKED_SESSIONS`), seconds.
    public var revokedSessionRetention = SettingCatalog.retainRevokedSessions.defaultValue
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
    public var passwordChecksPerAddress: Int = SettingCatalog.bcryptPerAddress.defaultValue
    /// Password checks (successful or not) one address may cause per minute (`SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS`;
    /// `0`: no budget).
    public var passwordChecksPerMinutePerAddress: Int = SettingCatalog.bcryptChecksPerAddress.defaultValue
    /// Whether anyone may create an account with `auth.register` (`SECUREPUSH_SELF_REGISTRATION`).
    public var selfRegistration: Bool
    /// How often expired refresh tokens are purged.
    public var purgeInterval: Duration

    /// The allowed bcrypt costs: below 10 is too weak, above 16 makes each sign-in take seconds.
    public static let bcryptCostRange = SettingCatalog.bcryptCost.range

    public init(
        server: RPCServerConfiguration = RPCServerConfiguration(port: 0),
        databasePath: String? = nil,
        isProduction: Bool = false,
        signingKeyFile: String? = nil,
        accessTokenTTL: Int = SettingCatalog.accessTokenTTL.defaultValue,
        refreshTokenTTL: Int = SettingCatalog.refreshTokenTTL.defaultValue,
        bcryptCost: Int = 12,
        bootstrapClient: ClientRegistry.Credentials? = nil,
        dispatchClient: ClientRegistry.Credentials? = nil,
        maxFailedLogins: Int = SettingCatalog.loginMaxFailures.defaultValue,
        failedLoginWindow: Int = SettingCatalog.loginFailureWindow.defaultValue,
        authRateLimit: Int = SettingCatalog.authRateLimit.defaultValue,
        passwordQueueLength: Int = SettingCatalog.bcryptQueue.defaultValue,
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

extension AuthConfiguration {
    /// Reads the configuration from `SECUREPUSH_*` variables and checks it with `validate()`.
    ///
    /// The shared server settings on `SECUREPUSH_AUTH_PORT`, the database (`auth.sqlite` in `SECUREPUSH_DATA_DIR`),
    /// `SECUREPUSH_AUTH_SIGNING_KEY_FILE`, the `SECUREPUSH_BOOTSTRAP_CLIENT_*` and `SECUREPUSH_DISPATCH_CLIENT_*`
    /// credentials (secrets also from `…_SECRET_FILE`) and auth's own settings; their defaults and ranges are
    /// declared in ``SettingCatalog`` (docs/configuration.md).
    public init(environment: ServiceEnvironment) throws {
        self.init(
            server: try environment.server(port: SettingCatalog.authPort),
            databasePath: Self.databasePath(inDataDirectory: environment.dataDirectory),
            isProduction: environment.isProduction,
            signingKeyFile: try Self.signingKeyFile(environment),
            accessTokenTTL: try environment.int(SettingCatalog.accessTokenTTL),
            refreshTokenTTL: try environment.int(SettingCatalog.refreshTokenTTL),
            bcryptCost: try environment.int(SettingCatalog.bcryptCost),
            bootstrapClient: try Self.client(environment, prefix: "SECUREPUSH_BOOTSTRAP_CLIENT"),
            dispatchClient: try Self.client(environment, prefix: "SECUREPUSH_DISPATCH_CLIENT"),
            maxFailedLogins: try environment.int(SettingCatalog.loginMaxFailures),
            failedLoginWindow: try environment.int(SettingCatalog.loginFailureWindow),
            authRateLimit: try environment.int(SettingCatalog.authRateLimit),
            passwordQueueLength: try environment.int(SettingCatalog.bcryptQueue),
            selfRegistration: try environment.flag(SettingCatalog.selfRegistration)
        )
        if let value = environment.string("SECUREPUSH_AUTH_SIGNING_KEY"), PKCS11URI.isURI(value) {
            signingKeyURI = try HardwareModuleConfiguration.uri(value, variable: "SECUREPUSH_AUTH_SIGNING_KEY")
        }
        hardwareModule = HardwareModuleConfiguration(environment: environment)
        passwordChecksPerAddress = try environment.int(SettingCatalog.bcryptPerAddress)
        passwordChecksPerMinutePerAddress = try environment.int(SettingCatalog.bcryptChecksPerAddress)
        postgresURL = try environment.postgresURL()
        sqliteSynchronous = try environment.sqliteSynchronous()
        storeClient = try Self.client(environment, prefix: "SECUREPUSH_STORE_CLIENT")
        erasureSignInMaxAge = try environment.int(SettingCatalog.erasureSignInMaxAge)
        revokedSessionRetention = try environment.int(SettingCatalog.retainRevokedSessions)
        try validate()
        audit = try AuditConfiguration(environment: environment)
        if isProduction, !(try environment.productionAllowances().contains(.noAuthLimits)) {
            for (variable, value) in [
                ("SECUREPUSH_AUTH_RATE_LIMIT", authRateLimit), ("SECUREPUSH_LOGIN_MAX_FAILURES", maxFailedLogins),
            ] where value == 0 {
                throw ConfigurationError(
                    "\(variable)=0 turns a sign-in limit off in production (password guessing would be unbounded): "
                        + "set a limit, or SECUREPUSH_PRODUCTION_ALLOW=no-auth-limits if a gateway in front enforces one"
                )
            }
        }
    }

    /// The PEM file of `SECUREPUSH_AUTH_SIGNING_KEY` (when it is not a `pkcs11:` URI) or
    /// `SECUREPUSH_AUTH_SIGNING_KEY_FILE`; both set is refused (which one signs would be a guess).
    static func signingKeyFile(_ environment: ServiceEnvironment) throws -> String? {
        let key = environment.string("SECUREPUSH_AUTH_SIGNING_KEY")
        let file = environment.string("SECUREPUSH_AUTH_SIGNING_KEY_FILE")
        if key != nil, file != nil {
            throw ConfigurationError(
                "SECUREPUSH_AUTH_SIGNING_KEY and SECUREPUSH_AUTH_SIGNING_KEY_FILE are both set: set one")
        }
        if let key, PKCS11URI.isURI(key) { return nil }
        return key ?? file
    }

    /// Refuses configurations that would start unsafely or not at all, saying which variable to fix.
    public func validate() throws {
        guard Self.bcryptCostRange.contains(bcryptCost) else {
            throw ConfigurationError("SECUREPUSH_BCRYPT_COST must be in \(Self.bcryptCostRange), got \(bcryptCost)")
        }
        guard accessTokenTTL > 0 else { throw ConfigurationError("SECUREPUSH_ACCESS_TOKEN_TTL must be positive") }
        guard refreshTokenTTL > 0 else { throw ConfigurationError("SECUREPUSH_REFRESH_TOKEN_TTL must be positive") }
        if isProduction, signingKeyFile == nil, signingKeyURI == nil {
            throw ConfigurationError(
                "SECUREPUSH_AUTH_SIGNING_KEY_FILE (or SECUREPUSH_AUTH_SIGNING_KEY, a PEM file or a pkcs11: URI) must be "
                    + "set when SECUREPUSH_ENV=production (an ES256 / P-256 key)")
        }
        for (prefix, client) in [
            ("SECUREPUSH_BOOTSTRAP_CLIENT", bootstrapClient), ("SECUREPUSH_DISPATCH_CLIENT", dispatchClient),
            ("SECUREPUSH_STORE_CLIENT", storeClient),
        ] {
            guard let client else { continue }
            do {
                try CredentialRules.validateClientID(client.clientId, field: "\(prefix)_ID")
                try CredentialRules.validateClientSecret(
                    client.secret, minimumLength: minimumClientSecretLength, field: "\(prefix)_SECRET")
            } catch {
                let (variable, reason) = error.invalidField ?? (prefix, error.description)
                let hint = isProduction && variable.hasSuffix("_SECRET") ? " (SECUREPUSH_ENV=production)" : ""
                throw ConfigurationError("\(variable) \(reason)\(hint)")
            }
        }
        let named = [
            ("SECUREPUSH_BOOTSTRAP_CLIENT_ID", bootstrapClient), ("SECUREPUSH_DISPATCH_CLIENT_ID", dispatchClient),
            ("SECUREPUSH_STORE_CLIENT_ID", storeClient),
        ].compactMap { variable, client in client.map { (variable, $0.clientId) } }
        for (index, first) in named.enumerated() {
            for second in named[(index + 1)...] where first.1 == second.1 {
                throw ConfigurationError(
                    "\(first.0) and \(second.0) must differ (each client gets its own scope)")
            }
        }
    }

    private static func client(_ environment: ServiceEnvironment, prefix: String) throws -> ClientRegistry.Credentials?
    {
        let id = environment.string("\(prefix)_ID")
        let secret = try environment.secret("\(prefix)_SECRET")
        switch (id, secret) {
        case (nil, nil): return nil
        case (let id?, let secret?): return ClientRegistry.Credentials(clientId: id, secret: secret)
        default: throw ConfigurationError("\(prefix)_ID and \(prefix)_SECRET must be set together")
        }
    }
}
