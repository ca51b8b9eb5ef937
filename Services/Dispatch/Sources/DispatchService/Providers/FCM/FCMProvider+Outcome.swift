import Foundation

extension FCMProvider {
    /// What one `messages:send` answer means.
    enum SendOutcome: Equatable {
        case delivery(DeliveryOutcome)
        /// 401 for `staleToken`: drop it, get a new one, try once more.
        case refreshToken(staleToken: String)

        /// The outcome to record when no refresh is possible any more.
        var deliveryOutcome: DeliveryOutcome {
            switch self {
            case .delivery(let outcome): outcome
            case .refreshToken: .retry(after: .zero, reason: "UNAUTHENTICATED")
            }
        }
    }

    /// The code an error answer names: its `FcmError` code, else its Google API status; `nil` for a success.
    static func reasonCode(of response: RemoteProviderHTTP.Response) -> String? {
        guard !(200..<300).contains(response.status) else { return nil }
        let error = try? JSONDecoder().decode(FCMErrorResponse.self, from: Data(response.body.readableBytesView))
        return error?.fcmErrorCode ?? error?.error.status
    }

    /// Maps an FCM answer onto a delivery outcome (FCM HTTP v1 `ErrorCode` reference).
    ///
    /// Only an explicit `UNREGISTERED` deactivates a device: a bare 404 (a wrong base URL or project) must not
    /// deactivate every FCM device. Throttling and server errors are retried, honouring `Retry-After`.
    func outcome(for response: RemoteProviderHTTP.Response, accessToken: String) -> SendOutcome {
        let status = response.status
        if (200..<300).contains(status) { return .delivery(.sent) }
        let error = try? JSONDecoder().decode(FCMErrorResponse.self, from: Data(response.body.readableBytesView))
        let fcmCode = error?.fcmErrorCode
        let reason = fcmCode ?? error?.error.status ?? "HTTP \(status)"
        let hint = RetryHint.delay(response.header("Retry-After"), now: now()) ?? .zero
        switch (fcmCode, status) {
        case ("UNREGISTERED", _):
            return .delivery(.deactivate(reason: reason))
        case ("QUOTA_EXCEEDED", _), ("UNAVAILABLE", _), ("INTERNAL", _), (_, 429), (_, 500...599):
            return .delivery(.retry(after: hint, reason: reason))
        case ("THIRD_PARTY_AUTH_ERROR", _):
            // The APNs or Web Push credentials in the Firebase project are wrong for this device: not our token.
            return .delivery(.failed(reason: reason))
        case (_, 401):
            return .refreshToken(staleToken: accessToken)
        default:
            // INVALID_ARGUMENT, SENDER_ID_MISMATCH and any other client error: retrying cannot help.
            return .delivery(.failed(reason: reason))
        }
    }
}
