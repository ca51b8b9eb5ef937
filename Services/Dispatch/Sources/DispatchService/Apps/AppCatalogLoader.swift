import Foundation
import Logging
import ServiceCore
import ServiceLifecycle
import SharedModels
import Synchronization

/// Keeps the ``AppCatalog`` equal to the `app` table: reads every app at start, then every `interval`
/// (`SECUREPUSH_APPS_REFRESH_INTERVAL`) the ids and revisions, rebuilding the providers of an app whose revision
/// changed (created, updated or rotated on any replica or by the CLI) and dropping deleted apps. A replaced provider
/// is shut down after `retirementDelay`, so attempts in flight with it finish; every provider is shut down when the
/// service stops (it stops after the delivery workers, which come later in the service list).
///
/// An app whose credentials cannot be opened or built is not served (its sends fail `-32602` naming `appId`, its
/// jobs end failed) and is logged by id, never with its secrets; the others keep working.
public struct AppCatalogLoader: Service {
    /// Builds an app's providers from its credentials.
    public typealias ProviderFactory = @Sendable (AppCredentials) async throws -> [any RemotePushProvider]

    let catalog: AppCatalog
    let repository: SQLAppRepository
    /// The key that opens credentials, read again for every app that changed: a key file created or extended by
    /// `securepush apps` after the start is used without a restart.
    let keys: AppsKeySource
    let makeProviders: ProviderFactory
    let interval: Duration
    let retirementDelay: Duration
    let logger: Logger
    private let lock = AsyncLock()
    /// The revisions that could not be served (logged once each).
    private let unusableVersions = UnusableVersions()
    /// The apps each refresh retired, for ``run()`` to close.
    private let retirements = AsyncStream<[ServedApp]>.makeStream()

    public init(
        catalog: AppCatalog, repository: SQLAppRepository, keys: AppsKeySource,
        makeProviders: @escaping ProviderFactory, interval: Duration, retirementDelay: Duration = .seconds(60),
        logger: Logger
    ) {
        self.catalog = catalog
        self.repository = repository
        self.keys = keys
        self.makeProviders = makeProviders
        self.interval = interval
        self.retirementDelay = retirementDelay
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                // Whoever refreshed (this loop, or a change through `apps.*`), retired providers are closed here,
                // once attempts in flight with them had time to finish.
                group.addTask { [retirements, retirementDelay] in
                    await withDiscardingTaskGroup { closing in
                        for await retired in retirements.stream {
                            closing.addTask {
                                try? await Task.sleep(for: retirementDelay)
                                for app in retired {
                                    for provider in app.providers.values { await provider.shutdown() }
                                }
                            }
                        }
                    }
                }
                do {
                    try await refresh()
                } catch {
                    // Not marked loaded: an app the catalog does not know yet may exist, so its lookups answer
                    // `-32050` (try again) rather than "no such app" until a refresh succeeds.
                    logger.error("apps.load_failed", metadata: ["error": "\(error)"])
                }
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(for: interval)
                    } catch {
                        break
                    }
                    do {
                        try await refresh()
                    } catch {
                        logger.warning("apps.refresh_failed", metadata: ["error": "\(error)"])
                    }
                }
                retirements.continuation.finish()
            }
        }
        for provider in catalog.allProviders { await provider.shutdown() }
    }

    /// Reads the revisions, loads the apps whose revision changed, and serves the result; returns the apps retired.
    /// One refresh at a time (the periodic one, and those after a change made through `apps.*`), so two never build
    /// providers for the same revision.
    @discardableResult
    public func refresh() async throws -> [ServedApp] {
        try await lock.withLock { try await refreshHoldingLock() }
    }

    private func refreshHoldingLock() async throws -> [ServedApp] {
        let versions = try await repository.versions()
        let served = catalog.databaseVersions
        // Versions to load: new or changed, and again on every refresh one that could not be served (a key file
        // that lacked its key may have it now). Until then the app is not served here, not even with the version it
        // had: no replica sends with credentials older than their replacement plus the refresh interval (its jobs
        // wait for a replica that serves the app).
        let changed = versions.keys.sorted().filter { served[$0] != versions[$0] }
        let removed = served.keys.filter { versions[$0] == nil }
        unusableVersions.state.withLock { unusable in
            for id in unusable.keys where versions[id] == nil { unusable[id] = nil }
        }
        if changed.isEmpty && removed.isEmpty {
            catalog.markLoadedIfNeeded()
            return []
        }
        var apps: [ServedApp] = catalog.apps.filter { app in
            guard case .database = app.source else { return false }
            return versions[app.id] != nil && !changed.contains(app.id)
        }
        for id in changed {
            guard let record = try await repository.app(id: id) else { continue }
            do {
                apps.append(try await serve(record))
                unusableVersions.state.withLock { $0[id] = nil }
                logger.notice("apps.loaded", metadata: ["app.id": "\(id)", "app.revision": "\(record.revision)"])
            } catch {
                let first = unusableVersions.state.withLock {
                    $0.updateValue(record.version, forKey: id) != record.version
                }
                // Logged once per version, though tried on every refresh.
                if first {
                    logger.error(
                        "apps.unusable",
                        metadata: ["app.id": "\(id)", "app.revision": "\(record.revision)", "error": "\(error)"])
                }
            }
        }
        let retired = catalog.replaceDatabaseApps(apps)
        if !retired.isEmpty { retirements.continuation.yield(retired) }
        return retired
    }

    /// The app `record` describes, with its providers built from its opened credentials.
    func serve(_ record: AppRecord) async throws -> ServedApp {
        guard let sealer = try keys.sealer() else {
            throw ConfigurationError(
                "app '\(record.id)' has credentials but SECUREPUSH_APPS_KEY_FILE is not set: set it to the apps key file"
            )
        }
        let credentials = try sealer.open(record.sealedCredentials, appID: record.id)
        let providers = try await makeProviders(credentials)
        return ServedApp(
            id: record.id, displayName: record.displayName,
            providers: Dictionary(providers.map { ($0.platform, $0) }, uniquingKeysWith: { first, _ in first }),
            limits: record.limits, allowedOrigins: Set(record.allowedOrigins),
            source: .database(version: record.version))
    }
}

/// The version of each app that could not be opened or built, by app id (each logged once).
final class UnusableVersions: Sendable {
    let state = Mutex<[String: AppRecord.Version]>([:])
}
