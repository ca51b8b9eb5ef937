import Foundation

extension Devices {
    /// `devices.register {platform, token?, name?, apnsMode?, publicKey?}` (user token) → `{deviceId, verification?}`.
    /// Registering the same platform token again updates that device instead of adding one (its key included). An
    /// APNs, FCM or WNS token registered to another user is not moved: the result is a new pending device
    /// (`verification: "pending"`), and a challenge is pushed to the token for `devices.verify`.
    public enum Register: RPCMethod {
        public static let name = "devices.register"

        public struct Params: Codable, Sendable, Hashable {
            public var platform: Platform
            /// The platform's device token; optional for `direct`.
            public var token: String?
            /// A label for people, e.g. "Ada's phone".
            public var name: String?
            /// `alert` or `background`; only for platform `apns`; unset uses the deployment's SECUREPUSH_APNS_MODE.
            public var apnsMode: String?
            /// The device's P-256 public key (X9.62 uncompressed, base64url without padding): payloads sent to this
            /// device are sealed to it, and it signs the device's `SecurePush-Device-Proof`. Unset: an unsealed device.
            public var publicKey: String?
            public init(
                platform: Platform, token: String? = nil, name: String? = nil, apnsMode: String? = nil,
                publicKey: String? = nil
            ) {
                self.platform = platform
                self.token = token
                self.name = name
                self.apnsMode = apnsMode
                self.publicKey = publicKey
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            public var deviceId: String
            /// `"pending"` when the token belongs to another user's device: this device stays inactive until
            /// `devices.verify` answers the challenge pushed to the token. Absent for a registered device.
            public var verification: String?
            public init(deviceId: String, verification: String? = nil) {
                self.deviceId = deviceId
                self.verification = verification
            }
        }
    }

    /// `devices.list {}` (user token) → the caller's devices.
    public enum List: RPCMethod {
        public static let name = "devices.list"
        public typealias Params = Empty

        public struct Result: Codable, Sendable, Hashable {
            public var devices: [DeviceInfo]
            public init(devices: [DeviceInfo]) { self.devices = devices }
        }
    }

    /// A registered device.
    public struct DeviceInfo: Codable, Sendable, Hashable {
        public var deviceId: String
        public var platform: Platform
        public var name: String?
        public var createdAt: Date
        /// `false` once a provider reported the device gone; it is no longer targeted.
        public var active: Bool?
        /// The device's own APNs push mode (`alert` or `background`), when it chose one at registration.
        public var apnsMode: String?
        /// Whether the device registered a public key: payloads sent to it are sealed to that key.
        public var sealed: Bool?
        /// `"pending"` for a registration waiting for `devices.verify`; absent for a registered device.
        public var verification: String?
        public init(
            deviceId: String, platform: Platform, name: String? = nil, createdAt: Date, active: Bool? = nil,
            apnsMode: String? = nil, sealed: Bool? = nil, verification: String? = nil
        ) {
            self.verification = verification
            self.sealed = sealed
            self.deviceId = deviceId
            self.platform = platform
            self.name = name
            self.createdAt = createdAt
            self.active = active
            self.apnsMode = apnsMode
        }
    }

    /// `devices.unregister {deviceId}` (user token) → `{}`.
    public enum Unregister: RPCMethod {
        public static let name = "devices.unregister"

        public struct Params: Codable, Sendable, Hashable {
            public var deviceId: String
            public init(deviceId: String) { self.deviceId = deviceId }
        }

        public typealias Result = Empty
    }

    /// `devices.ack {deviceId, notificationId}` (user token) → `{}`: the device has the id; it is not sent again.
    public enum Ack: RPCMethod {
        public static let name = "devices.ack"

        public struct Params: Codable, Sendable, Hashable {
            public var deviceId: String
            public var notificationId: String
            public init(deviceId: String, notificationId: String) {
                self.deviceId = deviceId
                self.notificationId = notificationId
            }
        }

        public typealias Result = Empty
    }
}
