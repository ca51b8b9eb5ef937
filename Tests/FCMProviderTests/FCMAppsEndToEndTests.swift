import AuthService
import CryptoExtras
import DispatchService
import Foundation
import Logging
import SecurePushClient
import SecurePushStack
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// Another project's key: a second app's service account (generated once, as the first is).
let otherAccountKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

/// Several apps through the whole stack (issue 27), to FCM: the mock knows two projects' service accounts and, as
/// Google does, takes a project's messages only with that project's token. The app `default` comes from the
/// `SECUREPUSH_FCM_*` variables; `retail-android` is created with `AppAdministration` (what `securepush apps create`
/// runs) while the stack runs.
@Suite("Apps through the whole stack to FCM")
struct FCMAppsEndToEndTests {
    @Test(
        "two apps, two FCM projects: each app's sends reach its own project through its own service account, never the other's"
    )
    func twoProjects() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        var defaultAccount = TestServiceAccount(tokenURI: "")
        var retailAccount = TestServiceAccount(
            projectID: "retail-android", clientEmail: "firebase-adminsdk@retail-android.iam.gserviceaccount.com",
            privateKeyID: "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", tokenURI: "", key: otherAccountKey)
        let mock = FCMMock(account: defaultAccount, otherAccounts: [retailAccount], now: { Date() })
        try await withMockServer(certificates: certificates, router: mock.router()) { port in
            let baseURL = "https://127.0.0.1:\(port)"
            await mock.setBaseURL(baseURL)
            defaultAccount.tokenURI = baseURL + FCMMock.tokenPath
            retailAccount.tokenURI = baseURL + FCMMock.tokenPath
            let directory = TemporaryDirectory.processRootURL.appendingPathComponent(
                "fcm-apps-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let defaultFile = try defaultAccount.write()
            defer { try? FileManager.default.removeItem(atPath: (defaultFile as NSString).deletingLastPathComponent) }
            let logger = Logger(label: "fcm-apps") { _ in SwiftLogNoOpLogHandler() }
            let connection = [
                "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_FCM_URL": baseURL,
                "SECUREPUSH_FCM_CA_FILE": certificates.caCertificatePath, "SECUREPUSH_BCRYPT_COST": "10",
            ]
            let stack = try await LocalStack.start(
                environment: connection.merging([
                    "SECUREPUSH_HOST": "127.0.0.1", "SECUREPUSH_AUTH_PORT": "0", "SECUREPUSH_STORE_PORT": "0",
                    "SECUREPUSH_DISPATCH_PORT": "0", "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "backend",
                    "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": "default-backend-secret",
                    "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
                    "SECUREPUSH_DISPATCH_CLIENT_SECRET": "dispatch-secret",
                    "SECUREPUSH_FCM_CREDENTIALS_FILE": defaultFile, "SECUREPUSH_APPS_REFRESH_INTERVAL": "1",
                    "SECUREPUSH_DELIVERY_BACKOFF_BASE": "1", "SECUREPUSH_DELIVERY_BACKOFF_MAX": "1",
                ]) { _, new in new },
                logger: logger)
            let environment = ServiceEnvironment(connection)
            let endpoints = SecurePushEndpoints(auth: stack.authURL, store: stack.storeURL, dispatch: stack.dispatchURL)
            let device = try SecurePushDevice(endpoints: endpoints, logger: logger)
            let defaultBackend = try SecurePushBackend(
                authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "backend",
                clientSecret: "default-backend-secret", logger: logger)
            let retailBackend = try SecurePushBackend(
                authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "retail-backend",
                clientSecret: "retail-backend-secret-0123456789", logger: logger)
            do {
                _ = try await AppAdministration.with(environment: environment, logger: logger) { apps in
                    try await apps.create(
                        id: "retail-android", displayName: "Retail (Android)",
                        credentials: AppCredentials(
                            fcm: .init(serviceAccount: String(decoding: try retailAccount.json(), as: UTF8.self))))
                }
                try await ClientRegistry.with(
                    configuration: try AuthConfiguration(environment: environment), logger: logger
                ) { clients in
                    _ = try await clients.createClient(
                        id: "retail-backend", scopes: [Scope.pushSend], apps: ["retail-android"],
                        secret: "retail-backend-secret-0123456789")
                }
                try await run(mock: mock, device: device, defaultBackend: defaultBackend, retailBackend: retailBackend)
            } catch {
                for client in [defaultBackend, retailBackend] { await client.shutdown() }
                await device.shutdown()
                await stack.stop()
                throw error
            }
            for client in [defaultBackend, retailBackend] { await client.shutdown() }
            await device.shutdown()
            await stack.stop()
        }
    }

    func run(
        mock: FCMMock, device: SecurePushDevice, defaultBackend: SecurePushBackend, retailBackend: SecurePushBackend
    ) async throws {
        let userId = try await device.createAccount(username: "two-projects", password: "long enough password")
        try await device.signIn(username: "two-projects", password: "long enough password")
        // The new app is served within the refresh interval; the same registration token is a device of each app.
        var retailDevice: String?
        for _ in 0..<100 where retailDevice == nil {
            retailDevice = try? await device.register(
                device: .init(platform: .fcm, token: "fcm-registration-token-1", appId: "retail-android"))
            if retailDevice == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let retailID = try #require(retailDevice)
        let defaultID = try await device.register(device: .init(platform: .fcm, token: "fcm-registration-token-1"))
        #expect(defaultID != retailID)

        let retailSend = try await retailBackend.send(
            .init(recipientId: userId, payload: "retail secret", appId: "retail-android"))
        #expect(retailSend.deliveries.map(\.deviceId) == [retailID])
        let defaultSend = try await defaultBackend.send(.init(recipientId: userId, payload: "default secret"))
        #expect(defaultSend.deliveries.map(\.deviceId) == [defaultID])
        #expect(await eventually { await mock.sends.count == 2 })

        let sends = await mock.sends
        let violations = await mock.violations
        #expect(violations.isEmpty, "\(violations)")
        #expect(await mock.sendAttempts.count == 2, "a send was refused and retried (another project's token?)")
        #expect(sends.first { $0.projectID == "retail-android" }?.secureId == retailSend.notificationId)
        #expect(sends.first { $0.projectID == "securepush-test" }?.secureId == defaultSend.notificationId)
        #expect(
            Set(await mock.assertionHeaders.compactMap(\.kid)) == [
                "7f3c2d1e0b9a887766554433221100ffeeddccbb", "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
            ])
    }
}
