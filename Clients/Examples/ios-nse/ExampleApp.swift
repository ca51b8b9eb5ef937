import Foundation
import SecurePushDeviceCore

/// The app's side: once iOS hands the app its APNs token, register the device sealed, in alert mode, and leave what
/// the extension needs in shared storage.
public struct ExampleApp: Sendable {
    public let device: SecurePushDevice
    public let keys: any DeviceKeyStore
    public let state: ExampleSharedStateFile

    /// Keeps the shared session current whenever the app refreshes it (the extension never refreshes).
    public init(device: SecurePushDevice, keys: any DeviceKeyStore, state: ExampleSharedStateFile) async {
        self.device = device
        self.keys = keys
        self.state = state
        await device.onSessionChange { [state] session in
            var saved = (try? state.load()) ?? ExampleSharedState()
            saved.session = session
            try? state.save(saved)
        }
    }

    /// Call from `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` once signed in: registers the
    /// device (`platform: apns`, `apnsMode: alert`, its public key) and returns its id.
    public func didRegisterForRemoteNotifications(deviceToken: Data) async throws -> String {
        let token = deviceToken.map { String(format: "%02x", $0) }.joined()
        let deviceId = try await device.register(
            device: .init(platform: .apns, token: token, apnsMode: "alert"), key: try keys.loadOrCreate())
        try state.save(ExampleSharedState(session: await device.session, deviceId: deviceId))
        return deviceId
    }
}
