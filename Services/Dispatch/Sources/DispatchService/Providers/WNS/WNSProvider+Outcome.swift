import Foundation

extension WNSProvider {
    /// What one channel POST's answer means.
    enum SendOutcome: Equatable {
        case delivery(DeliveryOutcome)
        /// 401 for `staleToken`: drop it, get a new one, try once more.
        case refreshToken(staleToken: String)

        /// The outcome to record when no refresh is possible any more.
        var deliveryOutcome: DeliveryOutcome {
            switch self {
            case .delivery(let outcome): outcome
            case .refreshToken: .retry(after: .zero, reason: "HTTP 401")
            }
        }
    }

    /// Maps a WNS answer onto a delivery outcome (WNS "response codes" reference).
    ///
    /// 404 (unknown channel) and 410 (expired channel) deactivate the device; 406 (throttled), 429 and server errors
    /// are retried after `X-WNS-CONTINUE-AFTER` or `Retry-After` when given; other client errors fail.
    func outcome(for response: RemoteProviderHTTP.Response, accessToken: String) -> SendOutcome {
        let status = response.status
        var reason = "HTTP \(status)"
        if let description = response.header("X-WNS-Error-Description"), !description.isEmpty {
            reason += ": \(description.prefix(200))"
        }
        switch status {
        case 200..<300:
            switch response.header("X-WNS-Status")?.lowercased() {
            case "channelthrottled": return .delivery(.retry(after: retryHint(response), reason: "channelthrottled"))
            case "dropped": return .delivery(.failed(reason: "dropped"))
            default: return .delivery(.sent)
            }
        case 401:
            return .refreshToken(staleToken: accessToken)
        case 404, 410:
            return .delivery(.deactivate(reason: reason))
        case 406, 429, 500...599:
            return .delivery(.retry(after: retryHint(response), reason: reason))
        default:
            // 400, 403, 405, 413 and anything else: the request or our credentials are wrong; retrying cannot help.
            return .delivery(.failed(reason: reason))
        }
    }

    /// `X-WNS-CONTINUE-AFTER`, else `Retry-After`, else zero (the worker's backoff decides).
    ///
    /// Microsoft's header reference does not describe `X-WNS-CONTINUE-AFTER`; it is read like `Retry-After`:
    /// whole seconds to wait, or an HTTP-date to wait until.
    private func retryHint(_ response: RemoteProviderHTTP.Response) -> Duration {
        RetryHint.delay(response.header("X-WNS-CONTINUE-AFTER"), now: now())
            ?? RetryHint.delay(response.header("Retry-After"), now: now()) ?? .zero
    }
}
