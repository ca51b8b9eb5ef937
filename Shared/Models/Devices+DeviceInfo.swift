import Foundation

extension Devices {
    /// A registered device.
    public struct DeviceInfo: Codable, Sendable, Hashable {
        /// The device's id (a UUID).
        public var deviceId: String
        /// How the device is reached: `direct`, `apns`, `fcm`, `wns` or `webpush`.
        public var platform: Platform
        /// The label given at registration, if any.
        public var name: String?
        /// When the device was first registered.
        public var createdAt: Date
        /// `false` once a provider reported the device gone; it is no longer targeted.
        public var active: Bool?
        /// The device's own APNs push mode (`alert` or `background`), when it chose one at registration.
        public var apnsMode: String?
        /// Whether the device registered a public key: payloads sent to it are sealed to that key.
        public var sealed: Bool?
        /// `"pending"` for a registration waiting for `devices.verify`; absent for a registered device.
        public var verification: String?
        /// The app the device belongs to.
        public var appId: String?
        public init(
            deviceId: String, platform: Platform, name: String? = nil, createdAt: Date, active: Bool? = nil,
            apnsMode: String? = nil, sealed: Bool? = nil, verification: String? = nil, appId: String? = nil
        ) {
            self.appId = appId
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
}
