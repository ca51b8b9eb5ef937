import Foundation
import JSONRPC
import Logging
import SecurePushClient
import SecurePushStack
import SecurePushURLSession
import SharedModels
import TestSupport
import Testing

/// The device core on `URLSession` (FoundationNetworking here: HTTP/1.1 over cleartext, which the services answer
/// beside h2c) against the services `securepush up` runs (issue 28). Not over TLS: Linux's URLSession trusts only the
/// system's CA store (its CA file setting is Android's only), which a test must not change, and CI allows no skipped
/// test; docs/ios.md says so.
@Suite("The URLSession transport against the running services")
struct URLSessionTransportTests {
    @Test("sign in, register a sealed device, receive its id on the direct channel, fetch and open the payload")
    func sealedStory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logger = Logger(label: "urlsession") { _ in SwiftLogNoOpLogHandler() }
        let stack = try await LocalStack.start(
            environment: [
                "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_HOST": "127.0.0.1", "SECUREPUSH_AUTH_PORT": "0",
                "SECUREPUSH_STORE_PORT": "0", "SECUREPUSH_DISPATCH_PORT": "0",
                "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": "backend-secret",
                "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
                "SECUREPUSH_DISPATCH_CLIENT_SECRET": "dispatch-secret",
                "SECUREPUSH_BCRYPT_COST": "10",
            ], logger: logger)
        let transport = URLSessionTransport(
            auth: try #require(URL(string: stack.authURL)), store: try #require(URL(string: stack.storeURL)),
            dispatch: try #require(URL(string: stack.dispatchURL)))
        let device = SecurePushDevice(transport: transport, logger: logger)
        let backend = try SecurePushBackend(
            authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "backend",
            clientSecret: "backend-secret", logger: logger)
        do {
            let userId = try await device.createAccount(username: "ios-user", password: "long enough password")
            try await device.signIn(username: "ios-user", password: "long enough password")
            let key = DeviceKey()
            let deviceId = try await device.register(device: .init(platform: .direct, name: "iPhone"), key: key)
            let sent = try await backend.send(
                .init(recipientId: userId, payload: "Your balance is 1,234.56", sealedOnly: true))
            #expect(sent.deliveries.map(\.deviceId) == [deviceId])

            let received = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    for try await id in device.notifications(deviceId: deviceId) { return id }
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(15))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            #expect(received == sent.notificationId)
            let fetched = try await device.fetch(sent.notificationId)
            #expect(fetched.payload == "Your balance is 1,234.56")
            try await device.acknowledge(deviceId: deviceId, notificationId: sent.notificationId)

            // A refused call is the server's JSON-RPC error, as over HTTP/2.
            let missing = await #expect(throws: RPCError.self) {
                _ = try await device.fetch(UUID().uuidString.lowercased())
            }
            #expect(missing?.code == RPCErrorCode.notFound)
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

    @Test("a service nobody answers is -32050 naming the service, not a crash or a hang")
    func unreachable() async throws {
        let port = try await closedPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let device = SecurePushDevice(
            transport: URLSessionTransport(auth: url, store: url, dispatch: url), logger: Logger(label: "test"))
        let error = await #expect(throws: RPCError.self) {
            try await device.signIn(username: "ada", password: "long enough password")
        }
        #expect(error?.code == RPCErrorCode.unavailable)
        #expect(error?.message.contains("auth") == true, "\(String(describing: error))")
        await device.shutdown()
    }
}
