import CoreMetrics
import Prometheus

/// Where one service's metrics go: the factory its components record with, and the Prometheus registry that
/// `GET /metrics` serves. Built at the composition root and passed down; nothing is bootstrapped globally.
public struct ServiceMetrics: Sendable {
    /// What components create their counters, gauges and timers with.
    public let factory: any MetricsFactory
    /// The registry `GET /metrics` emits; `nil` serves no `/metrics` (tests recording with another factory).
    public let registry: PrometheusCollectorRegistry?

    /// Metrics recorded with `factory`; `registry` is what `GET /metrics` serves, if anything.
    public init(factory: any MetricsFactory, registry: PrometheusCollectorRegistry? = nil) {
        self.factory = factory
        self.registry = registry
    }

    /// A fresh Prometheus registry of the service's own (services sharing a process keep apart);
    /// `durationHistogramBuckets` gives named duration histograms buckets of their own.
    public static func prometheus(durationHistogramBuckets: [String: [Duration]] = [:]) -> ServiceMetrics {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = durationHistogramBuckets
        return ServiceMetrics(factory: factory, registry: registry)
    }

    /// Records nothing and serves no `/metrics`.
    public static var disabled: ServiceMetrics { ServiceMetrics(factory: NOOPMetricsHandler.instance) }

    /// What a service listening with `configuration` records: a Prometheus registry of its own (with
    /// `durationHistogramBuckets`, as ``prometheus(durationHistogramBuckets:)``), or nothing at all when its metrics
    /// are off (`SECUREPUSH_METRICS=off`).
    public static func serving(
        _ configuration: RPCServerConfiguration, durationHistogramBuckets: [String: [Duration]] = [:]
    ) -> ServiceMetrics {
        configuration.metricsEnabled ? .prometheus(durationHistogramBuckets: durationHistogramBuckets) : .disabled
    }
}
