import SharedModels
import Synchronization

/// The apps push-dispatch serves, by id: the environment's app (`default`, from the `SECUREPUSH_*` provider variables)
/// and the apps in the database, kept current by ``AppCatalogLoader``. Every send, registration and delivery attempt
/// looks its app up here, so a credential changed in the database is used without a restart.
///
/// Until the loader's first read of the database, a lookup of an app the catalog does not know yet waits for it (a
/// request arriving at start-up must not be refused for an app that exists).
public final class AppCatalog: Sendable {
    /// The id of the app configured by the `SECUREPUSH_*` provider variables; rows from before apps existed belong to it.
    public static let environmentAppID = "default"

    /// The app an omitted `appId` means (`SECUREPUSH_DEFAULT_APP`).
    public let defaultAppID: String

    private struct State {
        var apps: [String: ServedApp]
        var loaded: Bool
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - environmentProviders: the providers of the `default` app (at most one per platform).
    ///   - defaultAppID: the app an omitted `appId` means.
    ///   - loadsDatabase: whether an ``AppCatalogLoader`` will fill in the database's apps (lookups of unknown apps
    ///     wait for its first load); `false`: the catalog is complete as made.
    ///   - firstLoadWait: how long a lookup of an unknown app waits for that first load.
    public init(
        environmentProviders: [any RemotePushProvider], defaultAppID: String = AppCatalog.environmentAppID,
        loadsDatabase: Bool = false, firstLoadWait: Duration = .seconds(10)
    ) {
        self.firstLoadWait = firstLoadWait
        self.defaultAppID = defaultAppID
        let environment = ServedApp(
            id: Self.environmentAppID, displayName: "Default app (environment)",
            providers: Dictionary(
                environmentProviders.map { ($0.platform, $0) }, uniquingKeysWith: { first, _ in first }),
            source: .environment)
        state = Mutex(State(apps: [Self.environmentAppID: environment], loaded: !loadsDatabase))
    }

    /// How long a lookup of an unknown app waits for the first load of the database.
    let firstLoadWait: Duration

    /// The app `id`, waiting (at most ``firstLoadWait``, or until cancelled) for the first load of the database when it
    /// is not known yet; `nil` when there is none (or the first load has not ended: see ``isLoaded``).
    public func app(_ id: String) async -> ServedApp? {
        if let known = state.withLock({ $0.loaded ? .some($0.apps[id]) : $0.apps[id].map { .some($0) } }) {
            return known
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.loaded() }
            group.addTask { [firstLoadWait] in try? await Task.sleep(for: firstLoadWait) }
            await group.next()
            group.cancelAll()
        }
        return state.withLock { $0.apps[id] }
    }

    /// Whether the first load of the database's apps has ended (until then, an unknown app may still exist).
    public var isLoaded: Bool { state.withLock(\.loaded) }

    /// The provider for `platform` of app `appID`; `nil` when the app is gone or has no credentials for it.
    public func provider(appID: String, platform: Platform) async -> (any RemotePushProvider)? {
        await app(appID)?.providers[platform]
    }

    /// Whether some app lists `origin` (an `Origin` value, lowercased) among its browser origins: allowed by CORS beside
    /// `SECUREPUSH_CORS_ORIGINS`.
    public func allowsOrigin(_ origin: String) -> Bool {
        state.withLock { $0.apps.values.contains { $0.allowedOrigins.contains(origin) } }
    }

    /// Whether app `id` is served now (no waiting).
    public func serves(_ id: String) -> Bool {
        state.withLock { $0.apps[id] != nil }
    }

    /// Every app now served, sorted by id.
    public var apps: [ServedApp] {
        state.withLock { $0.apps.values.sorted { $0.id < $1.id } }
    }

    /// Every provider now in use (each shut down once when the service stops).
    var allProviders: [any RemotePushProvider] {
        state.withLock { $0.apps.values.flatMap { $0.providers.values } }
    }

    /// Serves `apps` (from the database) beside the environment's app, in place of the database's apps served so
    /// far; ends the wait of lookups blocked on the first load. Returns the apps no longer served as they were
    /// (removed or replaced): their providers are to be shut down once attempts in flight are done.
    @discardableResult
    func replaceDatabaseApps(_ apps: [ServedApp]) -> [ServedApp] {
        let (retired, waiters) = state.withLock { state in
            var next = state.apps.filter { $0.value.source == .environment }
            for app in apps where next[app.id] == nil { next[app.id] = app }
            let retired = state.apps.values.filter { old in
                guard case .database(let version) = old.source else { return false }
                return next[old.id]?.source != .database(version: version)
            }
            state.apps = next
            state.loaded = true
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            return (retired, waiters)
        }
        for waiter in waiters { waiter.resume() }
        return retired
    }

    /// The database apps served now, by id with the version of their row.
    var databaseVersions: [String: AppRecord.Version] {
        state.withLock { state in
            state.apps.compactMapValues { app in
                if case .database(let version) = app.source { version } else { nil }
            }
        }
    }

    /// Marks the first load done without changing what is served (it failed, or nothing changed): lookups stop
    /// waiting and see only what is served.
    func markLoaded() {
        _ = replaceDatabaseApps(apps.filter { $0.source != .environment })
    }

    /// ``markLoaded()`` when the first load has not happened yet.
    func markLoadedIfNeeded() {
        if !isLoaded { markLoaded() }
    }

    /// Returns once the first load ended, or when the calling task is cancelled.
    private func loaded() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.loaded || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
