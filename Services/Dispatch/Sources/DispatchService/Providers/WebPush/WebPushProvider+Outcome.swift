import Foundation

extension WebPushProvider {
    /// What a push service's answer means for the delivery (RFC 8030 §5, §6.2, §7.3, §8.4).
    static func outcome(status: Int, retryAfter: String?, excerpt: String, now: Date) -> DeliveryOutcome {
        let reason = describe(status: status, excerpt: excerpt)
        switch status {
        case 200..<300:
            return .sent
        case 404, 410:
            // The subscription expired or the user revoked permission: the browser must subscribe again.
            return .deactivate(reason: reason)
        case 429, 500..<600:
            return .retry(after: retryDelay(retryAfter, now: now), reason: reason)
        default:
            // 400 (malformed), 401/403 (VAPID rejected), 413 (too large) and anything else will not improve by retrying.
            return .failed(reason: reason)
        }
    }

    /// `Retry-After` as ``RetryHint`` reads it for every provider; `.zero` (the worker's backoff decides) when absent
    /// or unreadable.
    static func retryDelay(_ value: String?, now: Date) -> Duration {
        RetryHint.delay(value, now: now) ?? .zero
    }

    /// `"<status> <phrase>"`, then what the service said, if anything.
    private static func describe(status: Int, excerpt: String) -> String {
        let phrase: String
        switch status {
        case 400: phrase = "Bad Request"
        case 401: phrase = "Unauthorized"
        case 403: phrase = "Forbidden"
        case 404: phrase = "Not Found"
        case 410: phrase = "Gone"
        case 413: phrase = "Content Too Large"
        case 429: phrase = "Too Many Requests"
        case 500: phrase = "Internal Server Error"
        case 502: phrase = "Bad Gateway"
        case 503: phrase = "Service Unavailable"
        case 504: phrase = "Gateway Timeout"
        case 500..<600: phrase = "Server Error"
        default: phrase = "Unexpected Status"
        }
        return excerpt.isEmpty ? "\(status) \(phrase)" : "\(status) \(phrase): \(excerpt)"
    }
}
