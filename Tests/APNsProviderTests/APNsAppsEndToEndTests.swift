import APNsMock
import AuthService
import DispatchService
import Foundation
import Logging
import SecurePushClient
import SecurePushStack
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// Several apps through the whole stack (issue 27): the APNs mock knows two teams' keys, each pushing only to its own
/// topic, as Apple does; the app `default` comes from the `SECUREPUSH_APNS_*` variables, `retail-ios` is created with
/// `AppAdministration` (what `securepush apps create` runs) while the stack runs.
@Suite("Apps through the whole stack to APNs")
struct APNsAppsEndToEndTests {
    static let retailTopic = "com.bank.retail"

    @Test(
        "each app's sends reach only its devices with its own key and topic; a client of one app cannot send for another; a rotated key is used after the refresh"
    )
    func twoApps() async throws {
        let state = APNsMockState()
        let retailKey = APNsTestKey(keyID: "RETAIL0001", teamID: "TEAMRETAIL")
        let rotatedKey = APNsTestKey(keyID: "RETAIL0002", teamID: "TEAMRETAIL")
        try await withAPNsMock(
            state: state, otherApps: [(retailKey, Self.retailTopic), (rotatedKey, Self.retailTopic)]
        ) { mock in
            let directory = TemporaryDirectory.processRootURL.appendingPathComponent(
                "apps-e2e-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let logger = Logger(label: "apps-e2e") { _ in SwiftLogNoOpLogHandler() }
            let stack = try await startStack(
                against: mock, in: directory, backendSecret: "default-backend-secret", logger: logger,
                extra: ["SECUREPUSH_APPS_REFRESH_INTERVAL": "1"])
            let environment = ServiceEnvironment([
                "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_APNS_URL": mock.baseURL,
                "SECUREPUSH_APNS_CA_FILE": mock.certificates.caCertificatePath, "SECUREPUSH_BCRYPT_COST": "10",
            ])
            let endpoints = SecurePushEndpoints(auth: stack.authURL, store: stack.storeURL, dispatch: stack.dispatchURL)
            let device = try SecurePushDevice(endpoints: endpoints, logger: logger)
            let defaultBackend = try SecurePushBackend(
                authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "backend",
                clientSecret: "default-backend-secret", logger: logger)
            var retailBackend: SecurePushBackend?
            do {
                _ = try await AppAdministration.with(environment: environment, logger: logger) { apps in
                    try await apps.create(
                        id: "retail-ios", displayName: "Retail",
                        credentials: AppCredentials(
                            apns: .init(
                                teamId: retailKey.teamID, keyId: retailKey.keyID, privateKey: retailKey.p8,
                                topic: Self.retailTopic)))
                }
                _ = try await ClientRegistry.with(
                    configuration: try AuthConfiguration(environment: environment), logger: logger
                ) { clients in
                    try await clients.createClient(
                        id: "retail-backend", scopes: [Scope.pushSend], apps: ["retail-ios"],
                        secret: "retail-backend-secret-0123456789")
                }
                retailBackend = try SecurePushBackend(
                    authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "retail-backend",
                    clientSecret: "retail-backend-secret-0123456789", logger: logger)
                try await run(
                    state: state, mock: mock, device: device, defaultBackend: defaultBackend,
                    retailBackend: retailBackend!, environment: environment, retailPEM: retailKey.p8,
                    rotatedKey: rotatedKey,
                    directory: directory, logger: logger)
            } catch {
                await device.shutdown()
                await defaultBackend.shutdown()
                await retailBackend?.shutdown()
                await stack.stop()
                throw error
            }
            await device.shutdown()
            await defaultBackend.shutdown()
            await retailBackend?.shutdown()
            await stack.stop()
        }
    }

    func run(
        state: APNsMockState, mock: APNsMock, device: SecurePushDevice, defaultBackend: SecurePushBackend,
        retailBackend: SecurePushBackend, environment: ServiceEnvironment, retailPEM: String, rotatedKey: APNsTestKey,
        directory: URL,
        logger: Logger
    ) async throws {
        let userId = try await device.createAccount(username: "two-apps", password: "long enough password")
        try await device.signIn(username: "two-apps", password: "long enough password")
        // The new app is served within the refresh interval.
        var retailDevice: String?
        for _ in 0..<100 where retailDevice == nil {
            retailDevice = try? await device.register(
                device: .init(platform: .apns, token: deviceToken(1), appId: "retail-ios"))
            if retailDevice == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let retailID = try #require(retailDevice)
        // The same APNs token in the default app is another device.
        let defaultID = try await device.register(device: .init(platform: .apns, token: deviceToken(1)))
        #expect(defaultID != retailID)

        let retailSend = try await retailBackend.send(
            .init(recipientId: userId, payload: "retail secret", appId: "retail-ios"))
        #expect(retailSend.deliveries.map(\.deviceId) == [retailID])
        let defaultSend = try await defaultBackend.send(.init(recipientId: userId, payload: "default secret"))
        #expect(defaultSend.deliveries.map(\.deviceId) == [defaultID])
        #expect(await eventually { state.requests.count == 2 })
        let requests = state.requests
        // Each app's key pushed to its own topic (the mock refuses a key with another team's topic).
        #expect(requests.allSatisfy { $0.answer.status == 200 }, "\(requests.map(\.answer))")
        let byTopic = Dictionary(grouping: requests, by: { $0.headers["apns-topic"] ?? "" })
        #expect(
            byTopic[Self.retailTopic]?.map(\.bodyText).allSatisfy { $0.contains(retailSend.notificationId) } == true)
        #expect(byTopic[Self.retailTopic]?.compactMap(\.jwt).allSatisfy { Self.kid(of: $0) == "RETAIL0001" } == true)
        #expect(byTopic[mock.topic]?.map(\.bodyText).allSatisfy { $0.contains(defaultSend.notificationId) } == true)
        #expect(byTopic[mock.topic]?.compactMap(\.jwt).allSatisfy { Self.kid(of: $0) == mock.key.keyID } == true)

        // A client of retail-ios sends for retail-ios only.
        do {
            _ = try await retailBackend.send(.init(recipientId: userId, payload: "not for the default app"))
            Issue.record("a retail client sent for the default app")
        } catch let error as RPCError {
            #expect(error.code == RPCErrorCode.forbidden)
            #expect(error.data == .object(["appId": "default"]))
        }

        // The credentials are nowhere in clear in push-dispatch's files.
        let keyLine = try #require(retailPEM.split(separator: "\n").dropFirst().first.map(String.init))
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasPrefix("dispatch.sqlite") {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(bytes.range(of: Data("TEAMRETAIL".utf8)) == nil, "\(name) holds the team id in clear")
            #expect(bytes.range(of: Data("RETAIL0001".utf8)) == nil, "\(name) holds the key id in clear")
            #expect(bytes.range(of: Data(keyLine.utf8)) == nil, "\(name) holds the private key in clear")
        }

        // Rotating the key: sends after the refresh are signed with the new one.
        _ = try await AppAdministration.with(environment: environment, logger: logger) { apps in
            try await apps.update(
                id: "retail-ios",
                credentials: AppCredentials(
                    apns: .init(
                        teamId: rotatedKey.teamID, keyId: rotatedKey.keyID, privateKey: rotatedKey.p8,
                        topic: Self.retailTopic)))
        }
        try await Task.sleep(for: .seconds(2))
        let afterRotation = try await retailBackend.send(
            .init(recipientId: userId, payload: "after rotation", appId: "retail-ios"))
        #expect(
            await eventually {
                state.requests.contains { $0.bodyText.contains(afterRotation.notificationId) }
            })
        let rotated = try #require(state.requests.first { $0.bodyText.contains(afterRotation.notificationId) })
        #expect(rotated.answer.status == 200)
        #expect(rotated.jwt.map(Self.kid(of:)) == "RETAIL0002")
    }

    /// The `kid` of a provider token's header.
    static func kid(of jwt: String) -> String? {
        guard let header = jwt.split(separator: ".").first, let data = Data(base64URLEncoded: String(header)),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }
}
