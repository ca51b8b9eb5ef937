import Foundation
import SharedModels

/// A registered device as push-dispatch keeps it.
public struct DeviceRecord: Sendable, Hashable {
    /// A random UUID.
    public var id: String
    /// The user the device belongs to.
    public var ownerID: String
    public var platform: Platform
    /// The platform's device token; `nil` for a direct device registered without one.
    public var token: String?
    public var name: String?
    public var createdAt: Date
    public var lastRegisteredAt: Date
    /// `false` once a provider reported the device gone; inactive devices are not targeted.
    public var isActive: Bool
    /// The device's own APNs push mode (`alert` or `background`); `nil` uses the deployment's mode.
    public var apnsMode: String?
    /// The device's P-256 public key (base64url, validated); `nil` for an unsealed device.
    public var publicKey: String?
    /// A registration of another user's platform token that waits for `devices.verify` (see ``DeviceVerification``):
    /// inactive, never targeted, listed to its owner only.
    public var isPendingVerification: Bool
    /// The app the device belongs to: only that app's sends reach it, through that app's credentials.
    public var appID: String

    public init(
        id: String, ownerID: String, platform: Platform, token: String?, name: String?,
        createdAt: Date, lastRegisteredAt: Date, isActive: Bool, apnsMode: String? = nil, publicKey: String? = nil,
        isPendingVerification: Bool = false, appID: String = AppCatalog.environmentAppID
    ) {
        self.appID = appID
        self.isPendingVerification = isPendingVerification
        self.publicKey = publicKey
        self.id = id
        self.ownerID = ownerID
        self.platform = platform
        self.token = token
        self.name = name
        self.createdAt = createdAt
        self.lastRegisteredAt = lastRegisteredAt
        self.isActive = isActive
        self.apnsMode = apnsMode
    }

    /// The device as `devices.list` shows it.
    public var info: Devices.DeviceInfo {
        Devices.DeviceInfo(
            deviceId: id, platform: platform, name: name, createdAt: createdAt, active: isActive, apnsMode: apnsMode,
            sealed: publicKey != nil, verification: isPendingVerification ? DeviceVerification.pending : nil,
            appId: appID)
    }
}
