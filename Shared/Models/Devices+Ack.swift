extension Devices {
    /// `devices.ack {deviceId, notificationId}` (user token) → `{}`: the device has the id; it is not sent again.
    public enum Ack: RPCMethod {
        public static let name = "devices.ack"

        public struct Params: Codable, Sendable, Hashable {
            /// The caller's device that received the id.
            public var deviceId: String
            /// The notification id the device received.
            public var notificationId: String
            public init(deviceId: String, notificationId: String) {
                self.deviceId = deviceId
                self.notificationId = notificationId
            }
        }

        public typealias Result = Empty
    }
}

extension Devices.Ack.Params: RPCDirectDecodable {
    public init(params: RPCParamsReader) throws(RPCError) {
        self.init(deviceId: try params.string("deviceId"), notificationId: try params.string("notificationId"))
    }
}
