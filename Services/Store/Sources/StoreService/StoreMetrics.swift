import CoreMetrics
import ServiceCore

/// What the notification store counts: notifications stored, fetched and purged, and every `store.get` by outcome.
public struct StoreMetrics: Sendable {
    /// `securepush_store_notifications_stored_total`.
    let stored: Counter
    /// `securepush_store_notifications_fetched_total`: payloads handed to their recipient.
    let fetched: Counter
    /// `securepush_store_notifications_purged_total`: expired notifications deleted.
    let purged: Counter
    /// `securepush_store_fetches_total{outcome}`: every `store.get`, refused ones included.
    let fetches: CounterFamily

    public init(factory: any MetricsFactory) {
        stored = Counter(label: "securepush_store_notifications_stored_total", factory: factory)
        fetched = Counter(label: "securepush_store_notifications_fetched_total", factory: factory)
        purged = Counter(label: "securepush_store_notifications_purged_total", factory: factory)
        fetches = CounterFamily(
            label: "securepush_store_fetches_total", dimension: "outcome", values: MetricOutcome.all,
            factory: factory)
    }

    /// Records nothing.
    public static var disabled: StoreMetrics { StoreMetrics(factory: NOOPMetricsHandler.instance) }

    /// Counts one `store.get` that ended with `error` (`nil`: the payload was returned).
    func fetchEnded(_ error: (any Error)?) {
        fetches.increment(MetricOutcome.label(for: error))
        if error == nil { fetched.increment() }
    }
}
