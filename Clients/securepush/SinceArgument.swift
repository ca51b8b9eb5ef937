import Foundation

/// A `--since` value: an ISO 8601 time, or a duration before now (`90s`, `30m`, `2h`, `1d`).
enum SinceArgument {
    /// `text` as a time, or `nil` when it is neither form.
    static func time(_ text: String, now: Date) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropLast()), amount >= 0
        else { return nil }
        return now.addingTimeInterval(-amount * unit)
    }
}
