import Foundation
import SecurePushClient

/// What `securepush login` keeps (mode 0600): the endpoints, the session and the device registered by `listen`.
struct StoredCredentials: Codable {
    var username: String
    var endpoints: SecurePushEndpoints
    var session: DeviceSession
    var deviceId: String?
    /// Whether `deviceId` registered sealed, with the key in ``deviceKeyPath(beside:)``.
    var sealed: Bool?

    /// Where the device key is kept: beside the credentials file, mode 0600.
    static func deviceKeyPath(beside credentials: String) -> String {
        credentials + ".device-key"
    }
}

/// A backend client's id and secret, as `securepush up` writes it for local development (mode 0600).
struct BackendClientFile: Codable {
    var clientId: String
    var clientSecret: String
}

extension StoredCredentials {
    /// Opens the device SDK on the session saved by `securepush login` at `path`, persisting every refreshed session.
    static func openDevice(path: String) async throws -> (SecurePushDevice, StoredCredentials) {
        let saved: StoredCredentials?
        do {
            saved = try SecretFile.read(StoredCredentials.self, from: path)
        } catch {
            throw CLIError(
                "cannot read the saved session in \(path)",
                hint: "sign in again with `securepush login --username <name>`",
                exitCode: .signInNeeded, detail: "\(error)")
        }
        guard let stored = saved else {
            throw CLIError(
                "not signed in: no session in \(path)",
                hint: "sign in with `securepush login --username <name>` (SECUREPUSH_CREDENTIALS or --credentials "
                    + "choose another file)",
                exitCode: .signInNeeded)
        }
        let device = try SecurePushDevice(endpoints: stored.endpoints, session: stored.session, logger: cliLogger())
        if let deviceId = stored.deviceId, stored.sealed == true {
            // A sealed device fetches with its key alone once the session expired.
            await device.useSealedDevice(
                id: deviceId, key: try DeviceKey.loadOrCreate(path: deviceKeyPath(beside: path)))
        }
        await device.onSessionChange { session in
            // Refresh tokens rotate on every use: persist the new one at once or the next start is signed out.
            guard let session else { return }
            var updated = (try? SecretFile.read(StoredCredentials.self, from: path)) ?? stored
            updated.session = session
            try? SecretFile.write(updated, to: path)
        }
        return (device, stored)
    }
}
