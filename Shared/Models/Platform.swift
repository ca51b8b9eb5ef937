/// A push platform a device receives notification ids on. An open set: new platforms are added, never renamed.
public struct Platform: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The platform as it appears on the wire, e.g. `apns`.
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// SecurePush's own channel: a long-lived HTTP/2 event stream from push-dispatch.
    public static let direct = Platform(rawValue: "direct")
    /// Apple Push Notification service.
    public static let apns = Platform(rawValue: "apns")
    /// Firebase Cloud Messaging.
    public static let fcm = Platform(rawValue: "fcm")
    /// Windows Push Notification Services.
    public static let wns = Platform(rawValue: "wns")
    /// Web Push (RFC 8030).
    public static let webpush = Platform(rawValue: "webpush")

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
