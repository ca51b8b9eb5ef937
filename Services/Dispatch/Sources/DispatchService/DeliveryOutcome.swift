import Foundation
import ServiceCore
import SharedModels

/// What one delivery attempt achieved; the delivery worker turns it into the job's next state.
public enum DeliveryOutcome: Sendable, Hashable {
    /// Handed to the device's channel: status `sent`.
    case sent
    /// Not delivered this time (rate limit, server error, network): status `retrying`, `reason` kept as `lastError`.
    /// `after` is the provider's hint (`Retry-After`, …): the next attempt waits at least that long. `.zero` leaves the
    /// delay to the worker's exponential backoff.
    case retry(after: Duration, reason: String)
    /// Given up (a permanent refusal): status `failed` with `reason` (the provider's error code) as `lastError`.
    case failed(reason: String)
    /// Not delivered, and the next attempt could only come after the notification expires (the provider asked to
    /// wait that long): status `expired` with `reason` as `lastError`.
    case expired(reason: String)
    /// The provider reported the device gone: the delivery ends `deactivated` and the device is no longer targeted.
    case deactivate(reason: String)
    /// The provider reported the device gone since `date` (APNs 410 with a timestamp): the device is deactivated only
    /// when `date` is later than its last registration. A device that re-registered meanwhile stays active, and the
    /// delivery ends `failed` with `reason`.
    case deactivateIfRegisteredBefore(Date, reason: String)
}

extension DeliveryOutcome {
    /// What a repository writes on the job's row for this outcome.
    struct Recorded {
        var status: DeliveryStatus
        var lastError: String?
        var nextAttemptMilliseconds: Int64?
    }

    /// Whether recording needs the device's last registration time (see ``recorded(now:lastRegisteredAt:)``).
    var needsLastRegistration: Bool {
        if case .deactivateIfRegisteredBefore = self { return true }
        return false
    }

    /// The row's next state; `lastRegisteredAt` (milliseconds) is read only for `deactivateIfRegisteredBefore`.
    func recorded(now: Date, lastRegisteredAt: Int64?) -> Recorded {
        switch self {
        case .sent:
            return Recorded(status: .sent)
        case .retry(let after, let reason):
            return Recorded(
                status: .retrying, lastError: reason, nextAttemptMilliseconds: now.adding(after).millisecondsSince1970)
        case .failed(let reason):
            return Recorded(status: .failed, lastError: reason)
        case .expired(let reason):
            return Recorded(status: .expired, lastError: reason)
        case .deactivate(let reason):
            return Recorded(status: .deactivated, lastError: reason)
        case .deactivateIfRegisteredBefore(let goneSince, let reason):
            // A device registered again after the provider saw its token die has a fresh registration: keep it.
            let stillGone = lastRegisteredAt.map { goneSince.millisecondsSince1970 > $0 } ?? false
            return Recorded(status: stillGone ? .deactivated : .failed, lastError: reason)
        }
    }
}
