extension Devices {
    /// `devices.list {}` (user token) → the caller's devices.
    public enum List: RPCMethod {
        public static let name = "devices.list"

        public struct Result: Codable, Sendable, Hashable {
            /// The caller's devices, oldest first; pending ones last.
            public var devices: [DeviceInfo]
            public init(devices: [DeviceInfo]) { self.devices = devices }
        }
    }
}
