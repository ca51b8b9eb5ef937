import CoreMetrics

/// `securepush_retention_purged_total{kind}`: rows each retention rule purged (`deliveries`, `sends`, `receipts`,
/// `revokedSessions`, `idempotencyKeys`, `audit`).
public struct RetentionMetrics: Sendable {
    /// The metric's name.
    public static let label = "securepush_retention_purged_total"
    private let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Records nothing.
    public static let disabled = RetentionMetrics(factory: NOOPMetricsHandler.instance)

    /// Counts `count` rows of `kind` purged.
    public func purged(_ kind: String, _ count: Int) {
        guard count > 0 else { return }
        Counter(label: Self.label, dimensions: [("kind", kind)], factory: factory).increment(by: count)
    }
}
