import ArgumentParser
import Foundation
import SecurePushClient
import SharedModels

/// `securepush listen`: be a device on the direct channel — receive ids, fetch and print each payload.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Register this machine as a direct-channel device, then print every secure notification it receives.",
        discussion: """
            Uses the session saved by `securepush login`; the device id is kept with it, so restarts (and signing in \
            again as the same user) reuse the device. Payloads go to standard output; the device's registration and \
            the connection's state (connecting, connected, lost — retrying in N s, still not connected, reconnected) \
            go to standard error, one line per change.
            """
    )

    @Option(help: "device name shown in devices.list") var name: String = "securepush-cli"
    @Option(help: "exit after this many notifications (default: run until Ctrl-C)") var count: Int?
    @Flag(help: "register a new device even if one is saved") var newDevice = false
    @Flag(help: "register without a device key: payloads stay server-readable for this device") var unsealed = false
    @OptionGroup var credentials: CredentialsOptions

    func run() async throws {
        let path = credentials.path
        let (device, saved) = try await StoredCredentials.openDevice(path: path)
        var stored = saved
        let context = FailureContext(
            stored.endpoints, role: .device, notFoundHint: "the notification expired or was deleted before it was read")
        do {
            try await explainingFailures(context) {
                if stored.deviceId == nil || newDevice {
                    let params = Devices.Register.Params(platform: .direct, name: name)
                    let deviceId: String
                    if unsealed {
                        deviceId = try await device.register(device: params)
                    } else {
                        let key = try DeviceKey.loadOrCreate(path: StoredCredentials.deviceKeyPath(beside: path))
                        deviceId = try await device.register(device: params, key: key)
                    }
                    stored = (try SecretFile.read(StoredCredentials.self, from: path)) ?? stored
                    stored.deviceId = deviceId
                    stored.sealed = !unsealed
                    try SecretFile.write(stored, to: path)
                    // State, not a payload: standard error, like the connection's lines.
                    let why = newDevice ? "--new-device" : "none was saved for '\(stored.username)' on this machine"
                    note("registered direct device \(deviceId)\(unsealed ? "" : " (sealed)"): \(why)")
                }
                let deviceId = stored.deviceId!
                let reporter = ConnectionReporter(dispatchURL: stored.endpoints.dispatch, deviceId: deviceId)
                var received = 0
                for try await notificationId in device.notifications(
                    deviceId: deviceId, onStateChange: { reporter.report($0) })
                {
                    let notification = try await device.fetch(notificationId)
                    // Acknowledged before it is printed, so what the line says is already true for `status`.
                    try await device.acknowledge(deviceId: deviceId, notificationId: notificationId)
                    emit(
                        "[\(notification.createdAt.formatted(.iso8601))] \(notificationId): \(notification.payload ?? "")"
                    )
                    received += 1
                    if let count, received >= count { break }
                }
            }
        } catch {
            await device.shutdown()
            throw error
        }
        await device.shutdown()
    }
}
