/// Where one delivery of a notification to one device stands. An open set: new states are added, never renamed.
public struct DeliveryStatus: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The status as it appears on the wire, e.g. `queued`.
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Accepted and waiting for the device or the provider.
    public static let queued = DeliveryStatus(rawValue: "queued")
    /// Handed to the device's channel (for `direct`: written to its open event stream).
    public static let sent = DeliveryStatus(rawValue: "sent")
    /// The device acknowledged the id (`devices.ack`); it is not sent again.
    public static let acknowledged = DeliveryStatus(rawValue: "acknowledged")
    /// A failed attempt; another follows after a backoff.
    public static let retrying = DeliveryStatus(rawValue: "retrying")
    /// Given up; `lastError` says why.
    public static let failed = DeliveryStatus(rawValue: "failed")
    /// The notification expired before delivery.
    public static let expired = DeliveryStatus(rawValue: "expired")
    /// The provider reported the device gone; it is no longer targeted.
    public static let deactivated = DeliveryStatus(rawValue: "deactivated")
    /// A newer send with the same `collapseId` replaced the notification before it was delivered: it is never pushed.
    public static let collapsed = DeliveryStatus(rawValue: "collapsed")

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The wire value.
    public var description: String { rawValue }
}
