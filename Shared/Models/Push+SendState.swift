extension Push {
    /// Where a send stands in `push.status`: an open set, new states are added, never renamed.
    public struct SendState: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        /// The wire value.
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Waiting for its `sendAt`: nothing was pushed, the recipient cannot see it yet.
        public static let scheduled = SendState(rawValue: "scheduled")
        /// Withdrawn by `push.cancel` before it was due: it is never pushed nor shown.
        public static let cancelled = SendState(rawValue: "cancelled")
        /// Its devices were resolved and its deliveries queued (at once, or when it was due).
        public static let sent = SendState(rawValue: "sent")

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
