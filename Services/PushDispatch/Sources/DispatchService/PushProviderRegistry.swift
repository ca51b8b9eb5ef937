import SharedModels

/// The push providers push-dispatch runs, keyed by platform.
public struct PushProviderRegistry: Sendable {
    /// Platforms that exist in the contract but have no provider in this build yet.
    static let plannedPlatforms: Set<Platform> = [.apns, .fcm, .wns, .webpush]

    private let providers: [Platform: any PushProvider]

    /// - Parameter providers: one provider per platform; a later one for the same platform replaces an earlier one.
    public init(_ providers: [any PushProvider]) {
        var byPlatform: [Platform: any PushProvider] = [:]
        for provider in providers { byPlatform[provider.platform] = provider }
        self.providers = byPlatform
    }

    /// The supported platforms, sorted by name.
    public var platforms: [Platform] { providers.keys.sorted { $0.rawValue < $1.rawValue } }

    /// The provider for `platform`, or `-32602` naming `platform` when there is none.
    public func provider(for platform: Platform) throws(DispatchError) -> any PushProvider {
        if let provider = providers[platform] { return provider }
        let supported = platforms.map(\.rawValue).joined(separator: ", ")
        if Self.plannedPlatforms.contains(platform) {
            throw .invalidField("platform", "'\(platform)' is not supported yet (supported: \(supported))")
        }
        throw .invalidField("platform", "must be one of: \(supported)")
    }

    /// Hands freshly committed jobs to their providers, grouped by platform.
    public func jobsQueued(_ jobs: [DeliveryJob]) async {
        let byPlatform = Dictionary(grouping: jobs, by: \.platform)
        for (platform, jobs) in byPlatform {
            await providers[platform]?.jobsQueued(jobs)
        }
    }
}
