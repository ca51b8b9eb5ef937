import Foundation

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
    /// The provider reported the device gone: the delivery ends `deactivated` and the device is no longer targeted.
    case deactivate(reason: String)
    /// The provider reported the device gone since `date` (APNs 410 with a timestamp): the device is deactivated only
    /// when `date` is later than its last registration. A device that re-registered meanwhile stays active, and the
    /// delivery ends `failed` with `reason`.
    case deactivateIfRegisteredBefore(Date, reason: String)
}
