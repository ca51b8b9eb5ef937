import Foundation

extension Devices {
    /// `devices.register {platform, token?, name?, apnsMode?, publicKey?, appId?}` (user token) → `{deviceId, verification?}`.
    /// Registering the same platform token again updates that device instead of adding one (its key included). An
    /// APNs, FCM or WNS token registered to another user is not moved: the result is a new pending device
    /// (`verification: "pending"`), and a challenge is pushed to the token for `devices.verify`.
    public enum Register: RPCMethod {
        public static let name = "devices.register"

        public struct Params: Codable, Sendable, Hashable {
            /// How the device is reached: `direct`, or a configured provider (`apns`, `fcm`, `wns`, `webpush`).
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
            /// The app the device belongs to (its sends reach the device); unset: the deployment's default app.
            public var appId: String?
            public init(
                platform: Platform, token: String? = nil, name: String? = nil, apnsMode: String? = nil,
                publicKey: String? = nil, appId: String? = nil
            ) {
                self.appId = appId
                self.platform = platform
                self.token = token
                self.name = name
                self.apnsMode = apnsMode
                self.publicKey = publicKey
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The device's id (a UUID); a pending device's when `verification` is set.
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
}
