import Foundation
import Logging
import RPCServer
import ServiceCore
import SharedModels

/// What `securepush apps` does, on push-dispatch's database directly (PostgreSQL with `SECUREPUSH_DATABASE_URL`,
/// else `dispatch.sqlite` in the data directory), while push-dispatch runs or not: every replica serves a change
/// within `SECUREPUSH_APPS_REFRESH_INTERVAL`.
///
/// Errors are ``DispatchError``s (`-32602` naming the field, `-32009` for an id taken, `-32004` for no such app), so
/// the CLI explains them as it explains RPC errors. Credentials are checked by building the providers they configure
/// (no network) before anything is written, and are sealed under `SECUREPUSH_APPS_KEY_FILE`.
public struct AppAdministration: Sendable {
    let repository: SQLAppRepository
    let keys: AppsKeySource
    let makeProviders: AppCatalogLoader.ProviderFactory
    let now: @Sendable () -> Date
    /// The deployment's payload and TTL bounds, which an app's own may only lower.
    let deploymentLimits: (maxPayloadBytes: Int, maxTTLSeconds: Int)
    /// Told the path of the development key file when the first `create` generates it.
    let keyFileCreated: @Sendable (String) -> Void

    public init(
        repository: SQLAppRepository, keys: AppsKeySource, makeProviders: @escaping AppCatalogLoader.ProviderFactory,
        now: @escaping @Sendable () -> Date = { Date() },
        deploymentLimits: (maxPayloadBytes: Int, maxTTLSeconds: Int) = (
            SettingCatalog.maxPayloadBytes.defaultValue, SettingCatalog.maxTTL.defaultValue
        ),
        keyFileCreated: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.deploymentLimits = deploymentLimits
        self.keyFileCreated = keyFileCreated
        self.repository = repository
        self.keys = keys
        self.makeProviders = makeProviders
        self.now = now
    }

    /// Runs `body` on the database `environment` names (migrated first, closed afterwards).
    public static func with<T: Sendable>(
        environment: ServiceEnvironment, logger: Logger,
        keyFileCreated: @escaping @Sendable (String) -> Void = { _ in },
        _ body: (AppAdministration) async throws -> T
    ) async throws -> T {
        var configuration = DispatchConfiguration(dispatchClientID: "cli", dispatchClientSecret: "unused")
        configuration.databasePath =
            URL(fileURLWithPath: environment.dataDirectory)
            .appendingPathComponent("dispatch.sqlite").path
        configuration.postgresURL = try environment.postgresURL()
        configuration.sqliteSynchronous = try environment.sqliteSynchronous()
        let database = try ServiceDatabase.open(configuration, schema: DispatchMigrations.schema, logger: logger)
        let keys = try AppsKeySource.fromEnvironment(environment)
        let factory = PushProviders.appProviderFactory(environment: environment, logger: logger)
        let limits = (
            try environment.int(SettingCatalog.maxPayloadBytes), try environment.int(SettingCatalog.maxTTL)
        )
        return try await database.whileRunning { sql in
            try await body(
                AppAdministration(
                    repository: SQLAppRepository(database: sql), keys: keys, makeProviders: factory,
                    deploymentLimits: limits, keyFileCreated: keyFileCreated))
        }
    }

    /// Creates app `id`; `-32009` when it exists (also `default`, the environment's app).
    @discardableResult
    public func create(
        id: String, displayName: String, credentials: AppCredentials, limits: Apps.Limits = Apps.Limits(),
        allowedOrigins: [String] = []
    ) async throws -> AppRecord {
        try check(id: id, displayName: displayName, limits: limits)
        let origins = try Self.normalized(allowedOrigins)
        guard id != AppCatalog.environmentAppID else {
            throw DispatchError.conflict("app 'default' is configured by the SECUREPUSH_* provider variables")
        }
        try await check(credentials)
        let sealer = try keys.sealerCreatingKey(now: now(), onCreate: keyFileCreated)
        let record = AppRecord(
            id: id, displayName: displayName, sealedCredentials: try sealer.seal(credentials, appID: id),
            limits: limits, createdAt: now(), updatedAt: now(), allowedOrigins: origins)
        guard try await repository.create(record) else { throw DispatchError.conflict("app '\(id)' exists") }
        return record
    }

    /// Every app in the database, by id.
    public func list() async throws -> [AppRecord] {
        try await repository.list()
    }

    /// App `id` and what its credentials configure (fingerprints, never secrets); `-32004` when there is none.
    public func show(id: String) async throws -> (app: AppRecord, fingerprints: [String: String]) {
        let app = try await existing(id)
        guard let sealer = try keys.sealer() else {
            throw ConfigurationError(
                "SECUREPUSH_APPS_KEY_FILE is not set: the credentials of app '\(id)' cannot be opened")
        }
        return (app, try sealer.open(app.sealedCredentials, appID: id).fingerprints)
    }

    /// Changes app `id`: a new display name, a new device limit, and the credentials of each platform given
    /// (replacing that platform's; the others are kept). Sealed with the current key. Every replica uses the new
    /// credentials within `SECUREPUSH_APPS_REFRESH_INTERVAL`; attempts already in flight finish with the old ones.
    @discardableResult
    public func update(
        id: String, displayName: String? = nil, credentials: AppCredentials = AppCredentials(),
        limits: Apps.Limits = Apps.Limits(), allowedOrigins: [String]? = nil
    ) async throws -> AppRecord {
        var app = try await existing(id)
        let sealer = try keys.sealerCreatingKey(now: now())
        let merged = try sealer.open(app.sealedCredentials, appID: id).merging(credentials)
        try check(id: id, displayName: displayName ?? app.displayName, limits: app.limits.merging(limits))
        try await check(merged)
        app.displayName = displayName ?? app.displayName
        app.limits = app.limits.merging(limits)
        if let allowedOrigins { app.allowedOrigins = try Self.normalized(allowedOrigins) }
        app.sealedCredentials = try sealer.seal(merged, appID: id)
        app.updatedAt = now()
        guard try await repository.update(app) else {
            _ = try await existing(id)
            throw DispatchError.conflict("app '\(id)' was changed meanwhile: read it again and retry")
        }
        return try await existing(id)
    }

    /// Deletes app `id`: its devices go and their undelivered jobs end failed. `confirm` must equal `id`.
    public func delete(id: String, confirm: String) async throws {
        _ = try await existing(id)
        guard confirm == id else { throw DispatchError.invalidField("confirm", "must equal the appId, '\(id)'") }
        guard try await repository.delete(id: id, now: now()) else { throw DispatchError.appNotFound }
    }

    /// What ``rotateKey(addKey:reseal:)`` did.
    public struct KeyRotation: Sendable {
        /// The key added (`nil` with `addKey: false`).
        public var addedKeyID: String?
        /// The key that seals from now on: the key file's last.
        public var currentKeyID: String
        /// The apps sealed again under the current key.
        public var resealed: [String]
        /// The apps still under an older key (changed meanwhile: run again), by id.
        public var underOlderKeys: [String]
    }

    /// Rotates the apps key in two phases, as every replica must hold a key before anything is sealed under it:
    /// `addKey` appends a new key to the file (created when missing in development); `reseal` seals every app still
    /// under an older key again under the file's last key (an app changed meanwhile is left for the next run, never
    /// overwritten). Returns what is still under older keys: remove them from the file only when that is empty.
    public func rotateKey(addKey: Bool = true, reseal: Bool = true) async throws -> KeyRotation {
        guard let file = keys.file else {
            // Production without the variable: its refusal, which says how to set it.
            _ = try keys.sealerCreatingKey(now: now())
            throw ConfigurationError("the apps' keys are not in a file: there is nothing to rotate")
        }
        let path = file.path
        var added: String?
        if addKey {
            let key = EncryptionKey.generate(now: now())
            if FileManager.default.fileExists(atPath: path) {
                try file.append(key)
            } else {
                _ = try file.create(with: key)
            }
            guard try file.load().current.id == key.id else {
                throw ConfigurationError("the apps key file changed while the key was added: run the command again")
            }
            added = key.id
        }
        let sealer = AppCredentialSealer(ring: try file.load())
        let current = sealer.ring.current.id
        var resealed: [String] = []
        var older: [String] = []
        for var app in try await repository.list() where AppCredentialSealer.keyID(of: app.sealedCredentials) != current
        {
            guard reseal else {
                older.append(app.id)
                continue
            }
            let credentials = try sealer.open(app.sealedCredentials, appID: app.id)
            app.sealedCredentials = try sealer.seal(credentials, appID: app.id)
            app.updatedAt = now()
            if try await repository.update(app) { resealed.append(app.id) } else { older.append(app.id) }
        }
        return KeyRotation(addedKeyID: added, currentKeyID: current, resealed: resealed, underOlderKeys: older)
    }

    /// App `id` from the database: `-32602` naming `appId` when malformed or the environment's (read-only) app,
    /// `-32004` when there is none.
    func existing(_ id: String) async throws -> AppRecord {
        guard AppID.isValid(id) else { throw DispatchError.invalidField("appId", AppID.requirement) }
        guard id != AppCatalog.environmentAppID else {
            throw DispatchError.invalidField(
                "appId", "'default' is configured by the SECUREPUSH_* provider variables and is read-only")
        }
        guard let app = try await repository.app(id: id) else { throw DispatchError.appNotFound }
        return app
    }

    /// Builds (and shuts down) the providers `credentials` configure: what would fail at serving time fails here.
    private func check(_ credentials: AppCredentials) async throws {
        guard !credentials.platforms.isEmpty else {
            throw DispatchError.invalidField("credentials", "configure at least one platform (apns, fcm, wns, webPush)")
        }
        let providers: [any RemotePushProvider]
        do {
            providers = try await makeProviders(credentials)
        } catch let error as ConfigurationError {
            throw DispatchError.invalidField("credentials", error.description)
        }
        for provider in providers { await provider.shutdown() }
    }

    /// The browser origins given, normalized (`scheme://host[:port]`, lowercased); `-32602` naming `allowedOrigins`
    /// for `*`, anything not an origin, and `http://` other than loopback (a page served in clear could be anyone's).
    static func normalized(_ origins: [String]) throws(DispatchError) -> [String] {
        guard origins.count <= 64 else { throw .invalidField("allowedOrigins", "at most 64 origins") }
        var result: [String] = []
        for origin in origins {
            guard origin != "*", let normalized = CORSPolicy.normalize(origin) else {
                throw .invalidField(
                    "allowedOrigins", "'\(origin.prefix(100))' is not an origin (https://host[:port], without a path)")
            }
            guard normalized.hasPrefix("https://") || CORSPolicy.isLoopback(normalized) else {
                throw .invalidField(
                    "allowedOrigins", "'\(normalized)' must be https:// (http:// only for 127.0.0.1, ::1 or localhost)")
            }
            if !result.contains(normalized) { result.append(normalized) }
        }
        return result
    }

    func check(id: String, displayName: String, limits: Apps.Limits) throws(DispatchError) {
        guard AppID.isValid(id) else { throw .invalidField("appId", AppID.requirement) }
        guard (1...200).contains(displayName.count), !displayName.contains(where: \.isNewline) else {
            throw .invalidField("displayName", "must be 1 to 200 characters on one line")
        }
        let bounds: [(String, Int?, ClosedRange<Int>)] = [
            ("limits.maxDevicesPerUser", limits.maxDevicesPerUser, 1...100_000),
            ("limits.sendsPerMinute", limits.sendsPerMinute, 1...1_000_000),
            ("limits.maxPayloadBytes", limits.maxPayloadBytes, 1...deploymentLimits.maxPayloadBytes),
            ("limits.maxTTLSeconds", limits.maxTTLSeconds, 1...deploymentLimits.maxTTLSeconds),
        ]
        for (field, value, range) in bounds {
            if let value, !range.contains(value) {
                throw .invalidField(field, "must be between \(range.lowerBound) and \(range.upperBound)")
            }
        }
    }
}
