import ArgumentParser
import Foundation
import SecurePushClient
import SharedModels

/// `securepush devices`: the signed-in user's devices, and answering a pending device's challenge.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the signed-in user's devices, or verify a pending one (see `login`).",
        subcommands: [List.self, Verify.self, Remove.self]
    )

    /// `securepush devices list`: one line per device (pending ones say so).
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the signed-in user's devices (devices.list).")

        @OptionGroup var credentials: CredentialsOptions

        func run() async throws {
            let devices = try await DevicesCommand.withDevice(credentials) { device in
                try await device.devices()
            }
            for info in devices {
                var flags: [String] = []
                if info.verification != nil { flags.append("verification \(info.verification!)") }
                if info.active == false, info.verification == nil { flags.append("inactive") }
                if info.sealed == true { flags.append("sealed") }
                let label = info.name.map { " \"\($0)\"" } ?? ""
                emit(
                    "\(info.deviceId) \(info.platform.rawValue)\(label)"
                        + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))"))
            }
        }
    }

    /// `securepush devices verify`: answers the challenge pushed to a pending device's token.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Answer the challenge pushed to a pending device (devices.verify).",
            discussion: """
                A device registered with an APNs, FCM or WNS token that another user's device holds stays pending \
                until its new owner answers the `securepushChallenge` pushed to that token, within 10 minutes and \
                5 tries. The apps' SDKs answer it themselves; this command is for operators and tests.
                """)

        @Argument(help: "the pending device's id (devices.register's deviceId)") var deviceId: String
        @Argument(help: "the securepushChallenge the device received") var challenge: String
        @OptionGroup var credentials: CredentialsOptions

        func run() async throws {
            let verified = try await DevicesCommand.withDevice(
                credentials,
                notFound: "no pending device \(deviceId) of yours (answered already, ended after 5 tries, or expired)",
                notFoundHint: "register the device again for a new challenge; `securepush devices list` shows yours"
            ) { device in
                try await device.verify(deviceId: deviceId, challenge: challenge)
            }
            emit("verified device \(verified)")
        }
    }

    /// `securepush devices remove`: unregisters one of the user's devices (a lost laptop).
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Unregister one of the signed-in user's devices (devices.unregister).",
            discussion: "Its pushes stop, and the store deletes what was sealed to it and refuses its device proofs.")

        @Argument(help: "the device's id (see `devices list`)") var deviceId: String
        @OptionGroup var credentials: CredentialsOptions

        func run() async throws {
            try await DevicesCommand.withDevice(
                credentials, notFound: "no device \(deviceId) of yours",
                notFoundHint: "check the id with `securepush devices list`"
            ) { device in
                try await device.unregister(deviceId: deviceId)
            }
            var stored = try SecretFile.read(StoredCredentials.self, from: credentials.path)
            if stored?.deviceId == deviceId {
                // `listen` registers a new device next time instead of streaming for a removed one.
                stored?.deviceId = nil
                if let stored { try SecretFile.write(stored, to: credentials.path) }
            }
            emit("removed device \(deviceId)")
        }
    }

    /// Runs `body` with the signed-in user's device client, explaining failures and shutting the client down.
    static func withDevice<T: Sendable>(
        _ credentials: CredentialsOptions, notFound: String? = nil, notFoundHint: String? = nil,
        _ body: @Sendable (SecurePushDevice) async throws -> T
    ) async throws -> T {
        let (device, stored) = try await StoredCredentials.openDevice(path: credentials.path)
        var context = FailureContext(stored.endpoints, role: .device, notFoundHint: notFoundHint)
        context.notFound = notFound
        do {
            let result = try await explainingFailures(context) { try await body(device) }
            await device.shutdown()
            return result
        } catch {
            await device.shutdown()
            throw error
        }
    }
}
