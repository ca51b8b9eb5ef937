/// What one delivery attempt achieved; the delivery repository records it on the job's row.
public enum DeliveryOutcome: Sendable, Hashable {
    /// Handed to the device's channel: status `sent`.
    case sent
    /// Not delivered this time; try again after `after` (status `retrying`, `reason` kept as `lastError`).
    case retry(after: Duration, reason: String)
    /// Given up: status `failed` with `reason` as `lastError`.
    case failed(reason: String)
    /// The provider reported the device gone: the delivery ends `deactivated` and the device is no longer targeted.
    case deactivate(reason: String)
}
