import CoreMetrics
import Foundation
import Logging
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Delivers one remote provider's jobs (APNs, FCM, WNS or Web Push) from the database: claims due jobs in batches,
/// leases them, attempts each once through the provider of the job's app (looked up in the ``AppCatalog`` per attempt,
/// so a rotated credential is used at once), and records every outcome in one transaction.
///
/// Nothing lives only in memory: a job is a `delivery` row from the moment `push.send` answers, so whatever a crash
/// interrupts is claimed again on the next start (once its lease lapses). At most `concurrency` attempts are in
/// flight, and never more jobs than that are held, however large the backlog. The worker sleeps when nothing is due:
/// `push.send` rings its doorbell, and it wakes by itself for the earliest retry or lapsing lease (at the latest
/// after the idle interval). On graceful shutdown it stops claiming and lets attempts in flight finish (the
/// ``AppCatalogLoader`` shuts the providers down after the workers).
public struct DeliveryWorker: Service {
    /// The platform whose jobs this worker delivers.
    public let platform: Platform
    /// The apps, with their providers.
    let catalog: AppCatalog
    let deliveries: any DeliveryRepository
    let doorbell: WakeUpSignal
    let configuration: DeliveryConfiguration
    let now: @Sendable () -> Date
    let logger: Logger
    /// `securepush_deliveries_total` of this worker's platform, by app.
    let deliveryCounts: PerAppCounters
    /// `securepush_provider_attempts_total` of this worker's platform, by app.
    let attemptCounts: PerAppCounters
    /// `securepush_devices_deactivated_total` of this worker's platform, by app.
    let deactivationCounts: PerAppCounters
    /// `securepush_delivery_latency_seconds` of this worker's platform.
    let deliveryLatency: CoreMetrics.Timer
    /// `securepush_provider_responses_total` of this worker's platform.
    let responses: ProviderResponses
    /// A span around each attempt.
    let tracing: DeliveryTracing

    /// What ends one wait of the worker's loop.
    enum Event: Sendable {
        /// The doorbell rang, or a planned wake-up time came.
        case woken
        /// An attempt finished; `retryAt` when its job is due again.
        case attempted(retryAt: Date?)
    }

    /// - Parameters:
    ///   - platform: the remote platform whose jobs this worker delivers.
    ///   - catalog: the apps, whose providers push the jobs.
    ///   - deliveries: where the jobs are.
    ///   - doorbell: rung when jobs were queued (the registry rings it after `push.send`).
    ///   - configuration: concurrency, leases, idle interval and retry policy.
    ///   - now: the clock recorded in the database.
    ///   - logger: the service's logger.
    ///   - metrics: counts attempts, deliveries and the provider's responses, and measures delivery latency.
    ///   - tracing: traces each attempt (off by default).
    public init(
        platform: Platform,
        catalog: AppCatalog,
        deliveries: any DeliveryRepository,
        doorbell: WakeUpSignal,
        configuration: DeliveryConfiguration,
        now: @escaping @Sendable () -> Date,
        logger: Logger,
        metrics: DispatchMetrics = .disabled,
        tracing: DeliveryTracing = .off
    ) {
        self.platform = platform
        self.catalog = catalog
        self.deliveries = deliveries
        self.doorbell = doorbell
        self.configuration = configuration
        self.now = now
        var logger = logger
        logger[metadataKey: LogMetadataKey.platform] = "\(platform)"
        self.logger = logger
        deliveryCounts = metrics.deliveries(platform, apps: catalog)
        attemptCounts = metrics.attempts(platform, apps: catalog)
        deactivationCounts = metrics.deactivations(platform, apps: catalog)
        deliveryLatency = metrics.deliveryLatency(platform)
        responses = metrics.responses(platform)
        self.tracing = tracing
    }

    /// How long a job of an app this replica does not serve (yet) waits before its next attempt.
    static let unservedAppRetry: Duration = .seconds(10)

    /// The most attempts in flight at once.
    var concurrency: Int { configuration.concurrency(for: platform) }

    /// A worker for `provider`'s platform, with `provider` as the `default` app's (tests and embedding). The worker
    /// shuts the provider down when it stops, as no ``AppCatalogLoader`` owns it.
    public init(
        provider: any RemotePushProvider,
        deliveries: any DeliveryRepository,
        doorbell: WakeUpSignal,
        configuration: DeliveryConfiguration,
        now: @escaping @Sendable () -> Date,
        logger: Logger,
        metrics: DispatchMetrics = .disabled,
        tracing: DeliveryTracing = .off
    ) {
        self.init(
            platform: provider.platform, catalog: AppCatalog(environmentProviders: [provider]), deliveries: deliveries,
            doorbell: doorbell, configuration: configuration, now: now, logger: logger, metrics: metrics,
            tracing: tracing)
        ownedProvider = provider
    }

    /// The provider this worker shuts down when it stops (made by ``init(provider:deliveries:doorbell:configuration:now:logger:metrics:tracing:)``).
    private var ownedProvider: (any RemotePushProvider)?

    /// Delivers until graceful shutdown (or cancellation), then waits for the attempts in flight.
    public func run() async throws {
        // Unique per run, so a lease taken before a restart is never mistaken for ours.
        let owner = "\(platform)-\(UUID.random().uuidString.lowercased())"
        logger.debug("delivery.worker.started", metadata: ["delivery.concurrency": "\(concurrency)"])
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Event.self) { group in
                await deliver(in: &group, owner: owner)
                // Attempts in flight finish and are recorded; only then is the worker done.
                for await _ in group {}
            }
        } onGracefulShutdown: {
            doorbell.close()
        }
        await ownedProvider?.shutdown()
        logger.debug("delivery.worker.stopped")
    }
}
