import CoreMetrics
import Foundation
import Logging
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Delivers one remote provider's jobs (APNs, FCM, WNS or Web Push) from the database: claims due jobs in batches,
/// leases them, attempts each once through the provider, and records every outcome in one transaction.
///
/// Nothing lives only in memory: a job is a `delivery` row from the moment `push.send` answers, so whatever a crash
/// interrupts is claimed again on the next start (once its lease lapses). At most `concurrency` attempts are in
/// flight, and never more jobs than that are held, however large the backlog. The worker sleeps when nothing is due:
/// `push.send` rings its doorbell, and it wakes by itself for the earliest retry or lapsing lease (at the latest
/// after the idle interval). On graceful shutdown it stops claiming, lets attempts in flight finish, then shuts the
/// provider down.
public struct DeliveryWorker: Service {
    let provider: any RemotePushProvider
    let deliveries: any DeliveryRepository
    let doorbell: WakeUpSignal
    let configuration: DeliveryConfiguration
    let now: @Sendable () -> Date
    let logger: Logger
    /// `securepush_deliveries_total` of this worker's platform.
    let deliveryCounts: CounterFamily
    /// `securepush_provider_attempts_total` of this worker's platform.
    let attemptCounts: CounterFamily
    /// `securepush_devices_deactivated_total` of this worker's platform.
    let deactivationCounts: CounterFamily
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
    ///   - provider: the remote provider whose platform's jobs this worker delivers.
    ///   - deliveries: where the jobs are.
    ///   - doorbell: rung when jobs were queued (the registry rings it after `push.send`).
    ///   - configuration: concurrency, leases, idle interval and retry policy.
    ///   - now: the clock recorded in the database.
    ///   - logger: the service's logger.
    ///   - metrics: counts attempts, deliveries and the provider's responses, and measures delivery latency.
    ///   - tracing: traces each attempt (off by default).
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
        self.provider = provider
        self.deliveries = deliveries
        self.doorbell = doorbell
        self.configuration = configuration
        self.now = now
        var logger = logger
        logger[metadataKey: LogMetadataKey.platform] = "\(provider.platform)"
        self.logger = logger
        deliveryCounts = metrics.deliveries(provider.platform)
        attemptCounts = metrics.attempts(provider.platform)
        deactivationCounts = metrics.deactivations(provider.platform)
        deliveryLatency = metrics.deliveryLatency(provider.platform)
        responses = metrics.responses(provider.platform)
        self.tracing = tracing
    }

    /// The most attempts in flight at once.
    var concurrency: Int { configuration.concurrency(for: provider.platform) }

    /// Delivers until graceful shutdown (or cancellation), then waits for the attempts in flight and shuts the
    /// provider down.
    public func run() async throws {
        // Unique per run, so a lease taken before a restart is never mistaken for ours.
        let owner = "\(provider.platform)-\(UUID.random().uuidString.lowercased())"
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
        await provider.shutdown()
        logger.debug("delivery.worker.stopped")
    }
}
