import SharedModels

/// One app as push-dispatch serves it right now: its providers (built from its credentials) and its limits.
public struct ServedApp: Sendable {
    /// Where an app is configured.
    public enum Source: Sendable, Hashable {
        /// The `SECUREPUSH_*` provider variables (the app `default`): read-only, changed by restarting.
        case environment
        /// The `app` table (`securepush apps create`), at this version of its row.
        case database(version: AppRecord.Version)
    }

    /// The app's id, e.g. `retail-ios`.
    public let id: String
    /// A name for people.
    public let displayName: String
    /// The remote providers of the platforms its credentials configure (`direct` needs none: every app has it).
    public let providers: [Platform: any RemotePushProvider]
    /// The app's own limits (absent ones are the deployment's).
    public let limits: Apps.Limits
    /// Devices per user for this app; `nil`: the deployment's `SECUREPUSH_MAX_DEVICES_PER_USER`.
    public var maxDevicesPerUser: Int? { limits.maxDevicesPerUser }
    /// The browser origins of the app's web pages (normalized); empty: none of its own (the environment's app: the
    /// origins of `SECUREPUSH_CORS_ORIGINS`).
    public let allowedOrigins: Set<String>
    /// Where the app is configured.
    public let source: Source

    public init(
        id: String, displayName: String, providers: [Platform: any RemotePushProvider],
        limits: Apps.Limits = Apps.Limits(), allowedOrigins: Set<String> = [], source: Source
    ) {
        self.allowedOrigins = allowedOrigins
        self.id = id
        self.displayName = displayName
        self.providers = providers
        self.limits = limits
        self.source = source
    }

    /// The platforms a device of this app may register with, sorted by name.
    public var platforms: [Platform] {
        ([Platform.direct] + providers.keys).sorted { $0.rawValue < $1.rawValue }
    }
}
