import ServiceCore
import SharedModels

/// How the delivery workers of remote providers (APNs, FCM, WNS, Web Push) run: how many attempts each provider may
/// have in flight, how leases and retries work.
public struct DeliveryConfiguration: Sendable {
    /// Attempts in flight per provider unless `concurrencyByPlatform` says otherwise (also the claim batch size).
    public var concurrency: Int
    /// Per-platform overrides of `concurrency`.
    public var concurrencyByPlatform: [Platform: Int]
    /// How long a claimed job stays leased to its worker; a live worker renews its leases every third of it, so only a
    /// crashed worker's jobs lapse, and are claimed again this long after the crash.
    public var leaseTimeout: Duration
    /// The longest a worker sleeps without looking at the database (wake-ups from `push.send` and retry due times
    /// wake it earlier; this bounds how late it notices jobs queued by another process).
    public var idleInterval: Duration
    /// Backoff and attempt bounds.
    public var retry: RetryPolicy

    /// The documented defaults: 64 in flight per provider, 60 s leases, a 30 s idle tick, the default `RetryPolicy`.
    public init(
        concurrency: Int = SettingCatalog.deliveryConcurrency.defaultValue,
        concurrencyByPlatform: [Platform: Int] = [:],
        leaseTimeout: Duration = .seconds(SettingCatalog.deliveryLeaseTimeout.defaultValue),
        idleInterval: Duration = .seconds(SettingCatalog.deliveryIdleInterval.defaultValue),
        retry: RetryPolicy = RetryPolicy()
    ) {
        self.concurrency = max(1, concurrency)
        self.concurrencyByPlatform = concurrencyByPlatform
        self.leaseTimeout = leaseTimeout
        self.idleInterval = idleInterval
        self.retry = retry
    }

    /// The most attempts `platform`'s provider may have in flight.
    public func concurrency(for platform: Platform) -> Int {
        max(1, concurrencyByPlatform[platform] ?? concurrency)
    }

    /// Reads the `SECUREPUSH_DELIVERY_*` settings and each platform's `SECUREPUSH_<PLATFORM>_CONCURRENCY` (defaults to
    /// `SECUREPUSH_DELIVERY_CONCURRENCY`), declared in ``SettingCatalog`` (docs/configuration.md); throws
    /// `ConfigurationError` naming a variable that is wrong.
    public init(environment: ServiceEnvironment) throws {
        let concurrency = try environment.int(SettingCatalog.deliveryConcurrency)
        var byPlatform: [Platform: Int] = [:]
        for platform in [Platform.apns, .fcm, .wns, .webpush] {
            let name = "SECUREPUSH_\(platform.rawValue.uppercased())_CONCURRENCY"
            if environment.string(name) != nil {
                byPlatform[platform] = try environment.int(name, default: concurrency, in: 1...10_000)
            }
        }
        let base = try environment.int(SettingCatalog.deliveryBackoffBase)
        let cap = try environment.int(SettingCatalog.deliveryBackoffMax)
        guard cap >= base else {
            throw ConfigurationError(
                "SECUREPUSH_DELIVERY_BACKOFF_MAX (\(cap)) must not be less than SECUREPUSH_DELIVERY_BACKOFF_BASE (\(base))"
            )
        }
        self.init(
            concurrency: concurrency,
            concurrencyByPlatform: byPlatform,
            leaseTimeout: .seconds(
                try environment.int(SettingCatalog.deliveryLeaseTimeout)),
            idleInterval: .seconds(
                try environment.int(SettingCatalog.deliveryIdleInterval)),
            retry: RetryPolicy(
                baseDelay: .seconds(base),
                maxDelay: .seconds(cap),
                maxAttempts: try environment.int(SettingCatalog.deliveryMaxAttempts)
            )
        )
    }
}
