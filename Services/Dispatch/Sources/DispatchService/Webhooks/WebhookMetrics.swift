import CoreMetrics

/// What the webhook sender counts: events recorded by type, attempts by result, endpoints disabled, attempt latency.
struct WebhookMetrics: Sendable {
    /// `securepush_webhook_attempts_total{result}`: `delivered` (2xx), `retry` (another attempt follows), `failed`
    /// (given up after `SECUREPUSH_WEBHOOK_MAX_ATTEMPTS`, or refused by the address rules).
    let delivered: Counter
    let retried: Counter
    let failed: Counter
    /// `securepush_webhook_events_recorded_total`: events recorded for endpoints (one per endpoint).
    let recorded: Counter
    /// `securepush_webhook_endpoints_disabled_total`: endpoints disabled after sustained failure.
    let disabled: Counter
    /// `securepush_webhook_attempt_seconds`: one POST, answer or timeout.
    let attemptDuration: CoreMetrics.Timer

    init(factory: any MetricsFactory) {
        let attempts = "securepush_webhook_attempts_total"
        delivered = Counter(label: attempts, dimensions: [("result", "delivered")], factory: factory)
        retried = Counter(label: attempts, dimensions: [("result", "retry")], factory: factory)
        failed = Counter(label: attempts, dimensions: [("result", "failed")], factory: factory)
        recorded = Counter(label: "securepush_webhook_events_recorded_total", factory: factory)
        disabled = Counter(label: "securepush_webhook_endpoints_disabled_total", factory: factory)
        attemptDuration = CoreMetrics.Timer(label: "securepush_webhook_attempt_seconds", factory: factory)
    }
}
