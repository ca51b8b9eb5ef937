import Foundation
import Logging
import SecurePushDeviceCore

/// The extension's side: what to show for a push, from what the app left in shared storage.
public enum ExampleExtension {
    /// The text for the push whose `userInfo` arrived; never throws (a missing state or key gives the generic text).
    public static func resolve(
        userInfo: [AnyHashable: Any], state: ExampleSharedStateFile, keys: any DeviceKeyStore,
        transport: any SecurePushTransport, timeBudget: Duration = .seconds(25)
    ) async -> ResolvedNotification {
        let saved = (try? state.load()) ?? ExampleSharedState()
        let device = SecurePushDevice(
            transport: transport, session: saved.session, logger: Logger(label: "securepush.extension"))
        // Only a key the app made and registered: one made here would open nothing.
        if let deviceId = saved.deviceId, let key = try? keys.load() {
            await device.useSealedDevice(id: deviceId, key: key)
        }
        let resolved = await SecurePushNotification.resolve(userInfo: userInfo, device: device, timeBudget: timeBudget)
        await device.shutdown()
        return resolved
    }
}
