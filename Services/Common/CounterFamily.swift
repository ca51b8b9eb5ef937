import CoreMetrics

/// Counters of one metric told apart by one label whose values are known in advance, all created up front so the hot
/// path never looks a counter up in the registry; a value outside the set counts as `other`.
public struct CounterFamily: Sendable {
    private let counters: [String: Counter]
    private let other: Counter

    /// - Parameters:
    ///   - label: the metric's name (`securepush_…_total`).
    ///   - dimension: the label told apart (`outcome`, `status`).
    ///   - values: its possible values.
    ///   - fixed: labels every counter of the family carries.
    public init(
        label: String, dimension: String, values: [String], fixed: [(String, String)] = [],
        factory: any MetricsFactory
    ) {
        var counters: [String: Counter] = [:]
        for value in values {
            counters[value] = Counter(label: label, dimensions: fixed + [(dimension, value)], factory: factory)
        }
        self.counters = counters
        other = counters["other"] ?? Counter(label: label, dimensions: fixed + [(dimension, "other")], factory: factory)
    }

    /// Counts one event (or `amount`) with label value `value`.
    public func increment(_ value: String, by amount: Int = 1) {
        (counters[value] ?? other).increment(by: amount)
    }
}

extension CounterFamily {
    /// Runs `operation` and counts it under its ``MetricOutcome`` (`ok`, or the kind of error it threw).
    public func counting<T>(_ operation: () async throws -> T) async rethrows -> T {
        do {
            let result = try await operation()
            increment("ok")
            return result
        } catch {
            increment(MetricOutcome.label(for: error))
            throw error
        }
    }
}
