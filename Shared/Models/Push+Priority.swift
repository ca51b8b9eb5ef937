extension Push {
    /// How urgently a send's providers deliver its id: `high` (APNs 10, FCM `android.priority: high`, Web Push
    /// `Urgency: high`, WNS `X-WNS-PRIORITY: 1`) or `normal` (APNs 5, FCM `normal`, Web Push `Urgency: normal`, WNS 2).
    /// An APNs device in background mode is never raised above 5. Any other value is `-32602` naming `priority`.
    public struct Priority: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        /// The wire value.
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Delivered at once, waking the device.
        public static let high = Priority(rawValue: "high")
        /// Delivered when the device's power state allows.
        public static let normal = Priority(rawValue: "normal")
        /// The values accepted.
        public static let accepted: [Priority] = [.high, .normal]

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }
    }
}
