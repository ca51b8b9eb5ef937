import ArgumentParser
import Foundation
import SecurePushClient
import SharedModels

/// `securepush fetch`: what a device does with a notification id it was pushed.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch one secure notification's payload by id, as the signed-in user (see `login`).",
        discussion: "Prints the payload alone on standard output; --json prints the whole notification."
    )

    @Argument(help: "the notification id a push delivered")
    var notificationId: String

    @Flag(help: "print the notification as JSON (id, payload, dates)")
    var json = false

    @OptionGroup var credentials: CredentialsOptions

    func run() async throws {
        let (device, stored) = try await StoredCredentials.openDevice(path: credentials.path)
        let notification: Store.StoredNotification
        var context = FailureContext(
            stored.endpoints, role: .device,
            notFoundHint: "check the id; only its recipient can fetch it, until it expires or is deleted")
        context.notFound = "no notification \(notificationId) for you (expired, deleted, or not yours)"
        do {
            notification = try await explainingFailures(context) { try await device.fetch(notificationId) }
        } catch {
            await device.shutdown()
            throw error
        }
        await device.shutdown()
        if json {
            let encoder = RPCCodec.makeEncoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            emit(String(decoding: try encoder.encode(notification), as: UTF8.self))
        } else {
            emit(notification.payload ?? "")
        }
    }
}
