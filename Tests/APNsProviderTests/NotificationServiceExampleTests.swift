import APNsMock
import Foundation
import Logging
import SecurePushClient
import SecurePushNSEExample
import SecurePushURLSession
import SharedModels
import TestSupport
import Testing

/// The iOS sample (Clients/Examples/ios-nse) as far as Linux can run it: the app registers with its APNs token and
/// leaves its state in shared storage; the extension, from that storage alone, shows the payload of the push the APNs
/// mock received (issue 28).
@Suite("The iOS sample's app and extension, on APNs pushes")
struct NotificationServiceExampleTests {
    @Test(
        "the app registers sealed in alert mode and shares its state; the extension shows the payload from that state alone"
    )
    func appAndExtension() async throws {
        let state = APNsMockState()
        try await withAPNsMock(state: state) { mock in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let logger = Logger(label: "nse-example") { _ in SwiftLogNoOpLogHandler() }
            let backendSecret = "backend-secret-\(UUID().uuidString)"
            let stack = try await startStack(
                against: mock, in: URL(fileURLWithPath: directory.path), backendSecret: backendSecret,
                logger: logger)
            let transport = URLSessionTransport(
                auth: try #require(URL(string: stack.authURL)), store: try #require(URL(string: stack.storeURL)),
                dispatch: try #require(URL(string: stack.dispatchURL)))
            let device = SecurePushDevice(transport: transport, logger: logger)
            let backend = try SecurePushBackend(
                authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "backend",
                clientSecret: backendSecret,
                logger: logger)
            do {
                let shared = ExampleSharedStateFile(directory: URL(fileURLWithPath: directory.path))
                let keys = FileDeviceKeyStore(path: directory.file("device-key"))
                let app = await ExampleApp(device: device, keys: keys, state: shared)
                let userId = try await device.createAccount(username: "sample-user", password: "long enough password")
                try await device.signIn(username: "sample-user", password: "long enough password")
                let deviceId = try await app.didRegisterForRemoteNotifications(
                    deviceToken: Data((0..<32).map { UInt8($0) }))
                #expect(try shared.load().deviceId == deviceId)

                let sent = try await backend.send(
                    .init(recipientId: userId, payload: "Card 4242 blocked", sealedOnly: true))
                #expect(await eventually { state.requests.contains { $0.bodyText.contains(sent.notificationId) } })
                let request = try #require(state.requests.first { $0.bodyText.contains(sent.notificationId) })
                let userInfo = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                #expect(((userInfo["aps"] as? [String: Any])?["mutable-content"] as? Int) == 1)

                let resolved = await ExampleExtension.resolve(
                    userInfo: userInfo, state: shared, keys: keys,
                    transport: URLSessionTransport(
                        auth: try #require(URL(string: stack.authURL)),
                        store: try #require(URL(string: stack.storeURL)),
                        dispatch: try #require(URL(string: stack.dispatchURL))))
                #expect(resolved.kind == .payload && resolved.body == "Card 4242 blocked", "\(resolved)")
            } catch {
                await device.shutdown()
                await backend.shutdown()
                await stack.stop()
                throw error
            }
            await device.shutdown()
            await backend.shutdown()
            await stack.stop()
        }
    }
}
