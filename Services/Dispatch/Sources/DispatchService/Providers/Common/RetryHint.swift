import Foundation

/// Reads a service's "try again later" hint: `Retry-After` (RFC 9110 §10.2.3) and WNS's `X-WNS-CONTINUE-AFTER`, for
/// every provider alike. What the worker then does with it (capped at `SECUREPUSH_DELIVERY_BACKOFF_MAX`, or the
/// delivery ends `expired` when it reaches past the notification's expiry) is ``RetryPolicy``'s.
enum RetryHint {
    /// Longest hint read, whatever the service sends: far beyond any backoff cap, and small enough that every date
    /// arithmetic on it stays finite (a hint of 10^17 seconds once crashed the dispatcher converting it to ms).
    static let longest: Duration = .seconds(86_400)

    /// The delay a header value asks for: a whole number of seconds, or an HTTP-date (then the time until it,
    /// never negative), at most ``longest``. `nil` when the value is neither, so the worker's own backoff decides.
    static func delay(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        let seconds: Double
        if value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
            seconds = Double(value) ?? .infinity  // digits only: too many for an Int is simply "very long"
        } else if let date = httpDate(value) {
            seconds = max(0, date.timeIntervalSince(now).rounded(.up))
        } else {
            return nil
        }
        return seconds >= longest.timeInterval ? longest : .seconds(Int(seconds))
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
