extension Devices {
    /// `devices.unregister {deviceId}` (user token) → `{}`.
    public enum Unregister: RPCMethod {
        public static let name = "devices.unregister"

        public struct Params: Codable, Sendable, Hashable {
            /// The caller's device (or pending device) to remove.
            public var deviceId: String
            public init(deviceId: String) { self.deviceId = deviceId }
        }

        public typealias Result = Empty
    }
}
