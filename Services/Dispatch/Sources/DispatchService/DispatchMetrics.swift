import CoreMetrics
import Foundation
import ServiceCore
import SharedModels

/// What push-dispatch counts: deliveries by platform and final status, provider attempts by result and responses by
/// status and reason, delivery and acknowledgement latency, and the direct channel's open streams and events written.
public struct DispatchMetrics: Sendable {
    private let factory: any MetricsFactory
    /// `securepush_direct_streams_open`: event streams open now.
    let openStreams: Meter
    /// `securepush_direct_events_written_total`: `push.notify` events written to event streams (re-sends included).
    let eventsWritten: Counter
    /// `securepush_delivery_latency_seconds{platform="direct"}`: send accepted to the id's first write to a stream.
    let directDeliveryLatency: CoreMetrics.Timer
    /// `securepush_direct_ack_latency_seconds`: send accepted to the device's `devices.ack` of a direct delivery.
    let directAckLatency: CoreMetrics.Timer

    /// `securepush_delivery_latency_seconds`.
    public static let deliveryLatencyLabel = "securepush_delivery_latency_seconds"
    /// `securepush_direct_ack_latency_seconds`.
    public static let directAckLatencyLabel = "securepush_direct_ack_latency_seconds"
    /// The latency histograms' buckets: 5 ms (a provider on the same network) to 5 min (a device that was offline,
    /// a provider throttling); anything later lands in `+Inf`.
    public static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60), .seconds(120), .seconds(300),
    ]
    /// The buckets of push-dispatch's duration histograms by metric name (a Prometheus factory's
    /// `durationHistogramBuckets`); others keep the factory's defaults.
    public static let durationHistogramBuckets: [String: [Duration]] = [
        deliveryLatencyLabel: latencyBuckets, directAckLatencyLabel: latencyBuckets,
    ]

    /// The final statuses a delivery can reach.
    static let finalStatuses = ["sent", "failed", "deactivated"]
    /// What one provider attempt can come to.
    static let attemptResults = ["sent", "retry", "failed", "deactivated"]
    /// Why a provider said a device is gone (a bounded set: providers' own reason texts are mapped onto it).
    static let deactivationReasons = ["unregistered", "expired", "bad_token", "other"]

    public init(factory: any MetricsFactory) {
        self.factory = factory
        openStreams = Meter(label: "securepush_direct_streams_open", factory: factory)
        eventsWritten = Counter(label: "securepush_direct_events_written_total", factory: factory)
        directDeliveryLatency = Self.deliveryLatency(.direct, factory: factory)
        directAckLatency = CoreMetrics.Timer(label: Self.directAckLatencyLabel, factory: factory)
    }

    /// `securepush_delivery_latency_seconds{platform}`: from `push.send` accepted to the provider accepting the
    /// notification (a remote provider's success; for `direct`, the id's first write to the device's stream).
    func deliveryLatency(_ platform: Platform) -> CoreMetrics.Timer {
        Self.deliveryLatency(platform, factory: factory)
    }

    private static func deliveryLatency(_ platform: Platform, factory: any MetricsFactory) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: deliveryLatencyLabel, dimensions: [("platform", platform.rawValue)], factory: factory)
    }

    /// `securepush_provider_responses_total{platform,status,reason}` of one remote provider.
    func responses(_ platform: Platform) -> ProviderResponses {
        ProviderResponses(platform: platform, factory: factory)
    }

    /// Records nothing.
    public static var disabled: DispatchMetrics { DispatchMetrics(factory: NOOPMetricsHandler.instance) }

    /// `securepush_deliveries_total{platform,app,status}`: deliveries that reached a final status (for `direct`:
    /// written to the device's stream), by app (``PerAppCounters``).
    func deliveries(_ platform: Platform, apps: AppCatalog) -> PerAppCounters {
        perApp(apps) { [factory] app in
            CounterFamily(
                label: "securepush_deliveries_total", dimension: "status", values: Self.finalStatuses,
                fixed: [("platform", platform.rawValue), ("app", app)], factory: factory)
        }
    }

    /// `securepush_devices_deactivated_total{platform,app,reason}`: devices a provider reported gone, which are no
    /// longer targeted.
    func deactivations(_ platform: Platform, apps: AppCatalog) -> PerAppCounters {
        perApp(apps) { [factory] app in
            CounterFamily(
                label: "securepush_devices_deactivated_total", dimension: "reason", values: Self.deactivationReasons,
                fixed: [("platform", platform.rawValue), ("app", app)], factory: factory)
        }
    }

    private func perApp(_ apps: AppCatalog, _ make: @escaping @Sendable (String) -> CounterFamily) -> PerAppCounters {
        PerAppCounters(isServed: { apps.serves($0) }, make: make)
    }

    /// Sets `securepush_delivery_queue_depth{platform}` and `securepush_delivery_queue_oldest_age_seconds{platform}`
    /// for each of `platforms` (0 for a platform with nothing waiting).
    public func recordQueue(_ statistics: [Platform: DeliveryQueueStatistics], platforms: [Platform], now: Date) {
        for platform in platforms {
            let dimensions = [("platform", platform.rawValue)]
            let waiting = statistics[platform]
            Meter(label: "securepush_delivery_queue_depth", dimensions: dimensions, factory: factory)
                .set(waiting?.depth ?? 0)
            Meter(label: "securepush_delivery_queue_oldest_age_seconds", dimensions: dimensions, factory: factory)
                .set(max(0, waiting.map { now.timeIntervalSince($0.oldestSentAt) } ?? 0))
        }
    }

    /// `securepush_provider_attempts_total{platform,app,result}`: every attempt through a remote provider.
    func attempts(_ platform: Platform, apps: AppCatalog) -> PerAppCounters {
        perApp(apps) { [factory] app in
            CounterFamily(
                label: "securepush_provider_attempts_total", dimension: "result", values: Self.attemptResults,
                fixed: [("platform", platform.rawValue), ("app", app)], factory: factory)
        }
    }
}

extension CoreMetrics.Timer {
    /// Records the time from `start` (when a send was accepted) to `end`; nothing when `start` is unknown. A start
    /// after `end` (another replica's clock ahead of ours) counts as 0; a nonsensical one is capped at a year.
    func recordLatency(since start: Date?, until end: Date) {
        guard let start else { return }
        let seconds = min(max(0, end.timeIntervalSince(start)), 365 * 86_400)
        recordNanoseconds(Int64((seconds * 1e9).rounded()))
    }
}

extension DeliveryOutcome {
    /// The `result` label of the attempt that produced this outcome.
    var metricResult: String {
        switch self {
        case .sent: "sent"
        case .retry: "retry"
        case .failed: "failed"
        case .expired: "expired"
        case .deactivate, .deactivateIfRegisteredBefore: "deactivated"
        }
    }

    /// The `reason` label of a deactivation: the provider's reason text mapped onto
    /// ``DispatchMetrics/deactivationReasons`` (`nil` for outcomes that deactivate nothing).
    public var deactivationReason: String? {
        let text: String
        switch self {
        case .deactivate(let reason), .deactivateIfRegisteredBefore(_, let reason): text = reason
        default: return nil
        }
        let lowered = text.lowercased()
        if lowered.contains("baddevicetoken") || lowered.contains("devicetokennotfortopic") { return "bad_token" }
        if lowered.contains("expired") || lowered.hasPrefix("http 410") { return "expired" }
        if lowered.contains("unregistered") || lowered.hasPrefix("http 404") { return "unregistered" }
        return "other"
    }
}
