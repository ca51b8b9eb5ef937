import Foundation
import HTTP2Client
import JSONRPC
import Logging
import SecurePushClient
import SecurePushStack
import SecurePushURLSession
import SharedModels
import TestSupport
import Testing

/// The device core on `URLSession` (FoundationNetworking here: HTTP/1.1 over cleartext, which the services answer
/// beside h2c) against the services `securepush up` runs (issue 28).
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

    /// Over TLS, Linux's URLSession (libcurl) trusts only the system's CA store, which the stack's development CA is
    /// not in: this runs only where the services' CA is trusted (an Apple machine, or a container whose store has the
    /// CA) and names them with `SECUREPUSH_URLSESSION_TLS_AUTH_URL`, `…_STORE_URL`, `…_DISPATCH_URL` and a backend
    /// client (`SECUREPUSH_CLIENT_ID`, `SECUREPUSH_CLIENT_SECRET`).
    @Test(
        "over TLS against services whose CA the system trusts: sign in, sealed device, direct channel, fetch",
        .enabled(
            if: ProcessInfo.processInfo.environment["SECUREPUSH_URLSESSION_TLS_AUTH_URL"] != nil,
            "skipped: Linux URLSession trusts only the system CA store, and no TLS stack it trusts was named"))
    func overTLS() async throws {
        let environment = ProcessInfo.processInfo.environment
        func url(_ name: String) throws -> URL {
            try #require(environment["SECUREPUSH_URLSESSION_TLS_\(name)_URL"].flatMap(URL.init(string:)))
        }
        let logger = Logger(label: "urlsession-tls")
        let device = SecurePushDevice(
            transport: URLSessionTransport(
                auth: try url("AUTH"), store: try url("STORE"), dispatch: try url("DISPATCH")),
            logger: logger)
        let username = "urlsession-\(UUID().uuidString.prefix(8).lowercased())"
        let userId = try await device.createAccount(username: username, password: "long enough password")
        try await device.signIn(username: username, password: "long enough password")
        let deviceId = try await device.register(device: .init(platform: .direct, name: "tls"), key: DeviceKey())
        let backend = try SecurePushBackend(
            authURL: try url("AUTH").absoluteString, dispatchURL: try url("DISPATCH").absoluteString,
            clientID: try #require(environment["SECUREPUSH_CLIENT_ID"]),
            clientSecret: try #require(environment["SECUREPUSH_CLIENT_SECRET"]),
            configuration: HTTP2ClientConfiguration(trustRootsPEMFile: environment["SECUREPUSH_CA_FILE"]),
            logger: logger)
        let sent = try await backend.send(.init(recipientId: userId, payload: "over TLS", sealedOnly: true))
        for try await id in device.notifications(deviceId: deviceId) {
            #expect(id == sent.notificationId)
            break
        }
        #expect(try await device.fetch(sent.notificationId).payload == "over TLS")
        await backend.shutdown()
        await device.shutdown()
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
