import SharedModels

/// How APNs notifications carry the id to the app.
public enum APNsPushMode: String, Sendable, Hashable, CaseIterable {
    /// A visible alert with the operator's fallback text and `mutable-content`, so the app's Notification Service
    /// Extension can fetch the payload and replace the text before it is shown. Apple delivers these reliably.
    case alert
    /// A silent `content-available` push that wakes the app to fetch the payload. Apple throttles these to a few
    /// per hour per device and drops them when the app was force-quit, so it suits low-volume apps only.
    case background

    /// The `apns-push-type` header.
    var pushType: String { rawValue }

    /// The `apns-priority` header by default: 10 (immediately) for alerts; background pushes must use 5.
    var priority: Int {
        switch self {
        case .alert: 10
        case .background: 5
        }
    }

    /// The `apns-priority` header for a send's `priority`: `normal` is 5, `high` (or none) the mode's own; a
    /// background push is never raised above 5 (Apple refuses it).
    func priority(for requested: Push.Priority?) -> Int {
        requested == .normal ? 5 : priority
    }
}
