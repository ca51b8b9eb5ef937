import SharedModels

/// The push providers push-dispatch runs, keyed by platform: the direct channel, and the remote providers with the
/// doorbells of their delivery workers.
public struct PushProviderRegistry: Sendable {
    private let direct: DirectProvider
    private let providers: [Platform: any PushProvider]
    private let doorbells: [Platform: WakeUpSignal]

    /// - Parameters:
    ///   - direct: the built-in direct channel.
    ///   - workers: the delivery worker of each configured remote platform (one per platform), rung when jobs for it
    ///     are queued.
    public init(direct: DirectProvider, workers: [DeliveryWorker]) {
        var byPlatform: [Platform: any PushProvider] = [direct.platform: direct]
        var doorbells: [Platform: WakeUpSignal] = [:]
        for worker in workers {
            byPlatform[worker.provider.platform] = worker.provider
            doorbells[worker.provider.platform] = worker.doorbell
        }
        self.direct = direct
        self.providers = byPlatform
        self.doorbells = doorbells
    }

    /// The supported platforms, sorted by name.
    public var platforms: [Platform] { providers.keys.sorted { $0.rawValue < $1.rawValue } }

    /// The provider for `platform`, or `-32602` naming `platform` when there is none.
    public func provider(for platform: Platform) throws(DispatchError) -> any PushProvider {
        if let provider = providers[platform] { return provider }
        let supported = platforms.map(\.rawValue).joined(separator: ", ")
        if Platform.remote.contains(platform) {
            throw .invalidField("platform", "'\(platform)' is not configured on this server (supported: \(supported))")
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
