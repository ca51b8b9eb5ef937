import SharedModels

/// The push providers push-dispatch runs, keyed by platform, with the doorbells of their delivery workers.
public struct PushProviderRegistry: Sendable {
    private let providers: [Platform: any PushProvider]
    private let doorbells: [Platform: DeliveryDoorbell]

    /// - Parameters:
    ///   - providers: one provider per platform; a later one for the same platform replaces an earlier one.
    ///   - doorbells: the delivery worker of each platform that has one, rung when jobs for it are queued.
    public init(_ providers: [any PushProvider], doorbells: [Platform: DeliveryDoorbell] = [:]) {
        var byPlatform: [Platform: any PushProvider] = [:]
        for provider in providers { byPlatform[provider.platform] = provider }
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

    /// Hands freshly committed jobs to their providers, grouped by platform, and wakes the delivery workers.
    public func jobsQueued(_ jobs: [DeliveryJob]) async {
        let byPlatform = Dictionary(grouping: jobs, by: \.platform)
        for (platform, jobs) in byPlatform {
            await providers[platform]?.jobsQueued(jobs)
            doorbells[platform]?.ring()
        }
    }
}

extension Platform {
    /// The platforms delivered through a remote service by a `DeliveryWorker` (everything but `direct`).
    static let remote: Set<Platform> = [.apns, .fcm, .wns, .webpush]
}
