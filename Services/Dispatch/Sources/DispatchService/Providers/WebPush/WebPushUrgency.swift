/// The RFC 8030 §5.3 `Urgency` header: how readily the push service may wake a device on battery for a message.
public enum WebPushUrgency: String, Sendable, Hashable, CaseIterable {
    case veryLow = "very-low"
    case low
    case normal
    /// The default: a secure-push id is useless unless the device fetches its payload promptly.
    case high
}
