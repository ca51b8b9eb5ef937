import Foundation

/// Reads a service's "try again later" hint: `Retry-After` (RFC 9110 §10.2.3) and WNS's `X-WNS-CONTINUE-AFTER`.
enum RetryHint {
    /// The delay a header value asks for: a whole number of seconds, or an HTTP-date (then the time until it,
    /// never negative). `nil` when the value is neither, so the worker's own backoff decides.
    static func delay(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
            // Absurdly long values saturate rather than overflow; the worker caps delays anyway.
            return .seconds(Int(value) ?? Int.max)
        }
        guard let date = httpDate(value) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }

    /// IMF-fixdate, or the obsolete RFC 850 and asctime forms recipients must still accept.
    private static func httpDate(_ value: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return date }
        }
        return nil
    }
}
