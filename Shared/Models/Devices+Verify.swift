extension Devices {
    /// `devices.verify {deviceId, challenge}` (user token) → `{deviceId}`: proves that the caller holds the device
    /// behind a pending registration's platform token, by answering the challenge pushed to it (the message's
    /// `securepushChallenge` field). Within 10 minutes of the registration, at most 5 tries; a wrong answer is
    /// `-32602` naming `challenge`. The right one moves the device to the caller under the pending `deviceId`.
    public enum Verify: RPCMethod {
        public static let name = "devices.verify"

        public struct Params: Codable, Sendable, Hashable {
            /// The pending device `devices.register` answered.
            public var deviceId: String
            /// The `securepushChallenge` the device received (base64url, 22 characters).
            public var challenge: String
            public init(deviceId: String, challenge: String) {
                self.deviceId = deviceId
                self.challenge = challenge
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The device's id, now the caller's: the pending `deviceId`.
            public var deviceId: String
            public init(deviceId: String) { self.deviceId = deviceId }
        }
    }
}
