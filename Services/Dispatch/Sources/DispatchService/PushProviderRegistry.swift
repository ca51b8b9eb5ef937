import SharedModels

/// The push providers push-dispatch runs: the direct channel (every app has it), each app's remote providers (in the
/// ``AppCatalog``), and the doorbells of the delivery workers (one per remote platform, for every app).
public struct PushProviderRegistry: Sendable {
    private let direct: DirectProvider
    /// The apps and their providers.
    public let catalog: AppCatalog
    private let doorbells: [Platform: WakeUpSignal]

    /// - Parameters:
    ///   - direct: the built-in direct channel.
    ///   - catalog: the apps, with their remote providers.
    ///   - workers: the delivery worker of each remote platform (one per platform), rung when jobs for it are queued.
    public init(direct: DirectProvider, catalog: AppCatalog, workers: [DeliveryWorker]) {
        self.direct = direct
        self.catalog = catalog
        self.doorbells = Dictionary(workers.map { ($0.platform, $0.doorbell) }, uniquingKeysWith: { first, _ in first })
    }

    /// The platforms some app can deliver to now, sorted by name.
    public var platforms: [Platform] {
        Set(catalog.apps.flatMap(\.platforms)).sorted { $0.rawValue < $1.rawValue }
    }

    /// App `id`, or `-32602` naming `appId` when it is malformed or no app has it.
    public func app(_ id: String) async throws(DispatchError) -> ServedApp {
        guard AppID.isValid(id) else { throw .invalidField("appId", AppID.requirement) }
        guard let app = await catalog.app(id) else {
            guard catalog.isLoaded else {
                throw .dependencyUnavailable("database", "the apps are not loaded yet: try again in a moment")
            }
            throw .invalidField("appId", "no app '\(id)' on this server")
        }
        return app
    }

    /// The provider for `platform` of `app`, or `-32602` naming `platform` when the app has none.
    public func provider(for platform: Platform, of app: ServedApp) throws(DispatchError) -> any PushProvider {
        if platform == direct.platform { return direct }
        if let provider = app.providers[platform] { return provider }
        let supported = app.platforms.map(\.rawValue).joined(separator: ", ")
        if Platform.remote.contains(platform) {
            let whose = app.id == AppCatalog.environmentAppID ? "this server" : "app '\(app.id)'"
            throw .invalidField("platform", "'\(platform)' is not configured on \(whose) (supported: \(supported))")
        }
        throw .invalidField("platform", "must be one of: \(supported)")
    }

    /// Wakes whoever delivers freshly committed jobs: the direct channel's event streams of their devices, and the
    /// delivery worker of each remote platform.
    public func jobsQueued(_ jobs: [DeliveryJob]) async {
        let byPlatform = Dictionary(grouping: jobs, by: \.platform)
        for (platform, jobs) in byPlatform {
            if platform == direct.platform {
                await direct.jobsQueued(jobs)
            } else {
                doorbells[platform]?.wake()
            }
        }
    }
}

extension Platform {
    /// The platforms delivered through a remote service by a `DeliveryWorker` (everything but `direct`).
    static let remote: Set<Platform> = [.apns, .fcm, .wns, .webpush]
}
