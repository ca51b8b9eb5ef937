/// Percentiles of a set of durations, in milliseconds (nearest rank).
struct LatencySummary: Codable, Sendable, Equatable {
    var count: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double

    /// `nil` when there are no samples.
    init?(_ samples: [Duration]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.map(\.milliseconds).sorted()
        func rank(_ p: Double) -> Double {
            let index = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
            return (sorted[Swift.max(0, Swift.min(sorted.count - 1, index))] * 100).rounded() / 100
        }
        count = sorted.count
        p50 = rank(50)
        p90 = rank(90)
        p99 = rank(99)
        max = (sorted[sorted.count - 1] * 100).rounded() / 100
    }
}

extension Duration {
    /// The duration in (fractional) milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// The duration in (fractional) seconds.
    var seconds: Double { milliseconds / 1000 }
}
