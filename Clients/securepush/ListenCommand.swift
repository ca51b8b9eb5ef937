import ArgumentParser
import Foundation
import SecurePushClient
import SharedModels

/// `securepush listen`: be a device on the direct channel — receive ids, fetch and print each payload.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Register this machine as a direct-channel device, then print every secure notification it receives.",
        discussion:
            "Uses the session saved by `securepush login`; the device id is kept with it, so restarts reuse the device."
    )

    @Option(help: "device name shown in devices.list") var name: String = "securepush-cli"
    @Option(help: "exit after this many notifications (default: run until Ctrl-C)") var count: Int?
    @Flag(help: "register a new device even if one is saved") var newDevice = false
    @OptionGroup var credentials: CredentialsOptions

    func run() async throws {
        let path = credentials.path
        let (device, saved) = try await StoredCredentials.openDevice(path: path)
        var stored = saved
        do {
            if stored.deviceId == nil || newDevice {
                let deviceId = try await reportingRPCErrors {
                    try await device.register(device: .init(platform: .direct, name: name))
                }
                stored = (try SecretFile.read(StoredCredentials.self, from: path)) ?? stored
                stored.deviceId = deviceId
                try SecretFile.write(stored, to: path)
                print("registered direct device \(deviceId)")
            }
            let deviceId = stored.deviceId!
            emit("listening for secure notifications on device \(deviceId)…")
            var received = 0
            for try await notificationId in device.notifications(deviceId: deviceId) {
                let notification = try await reportingRPCErrors { try await device.fetch(notificationId) }
                emit("[\(notification.createdAt.formatted(.iso8601))] \(notificationId): \(notification.payload)")
                try await device.acknowledge(deviceId: deviceId, notificationId: notificationId)
                received += 1
                if let count, received >= count { break }
            }
        } catch let error as SecurePushClientError {
            await device.shutdown()
            throw CLIError("\(error) — if the device was removed, run `securepush listen --new-device`")
        }
        await device.shutdown()
    }
}
