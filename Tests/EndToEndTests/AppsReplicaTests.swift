import Crypto
import DispatchService
import Foundation
import Logging
import PostgresNIO
import SecurePushClient
import ServiceCore
import SharedModels
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Apps across push-dispatch replicas on PostgreSQL (issue 27), as separate processes.
@Suite(
    "Apps across replicas on PostgreSQL",
    .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct AppsReplicaTests {
    let logger = Logger(label: "apps-replica-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "an app created with the CLI is served by both dispatch replicas at once (LISTEN/NOTIFY, not the hour-long poll); its credentials are sealed in the database"
    )
    func appReachesEveryReplica() async throws {
        let url = try TestPostgres.isolatedURL(schemaPrefix: "apps")
        let directory = try TemporaryDirectory(prefix: "apps-replicas")
        defer { directory.remove() }
        let keyFile = directory.file("apps-keys")
        _ = try EncryptionKeyFile(path: keyFile, purpose: .apps).create(with: .generate(now: Date()))
        let secret = "apps-backend-secret-\(UUID().uuidString)"
        let common = [
            "SECUREPUSH_DATABASE_URL": TestPostgres.url! + "&schema=\(url.schema!)",
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "default-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": secret,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "apps-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10", "SECUREPUSH_DATA_DIR": directory.path,
            "SECUREPUSH_APPS_KEY_FILE": keyFile,
            // Only a notification can explain a replica serving the new app within seconds.
            "SECUREPUSH_APPS_REFRESH_INTERVAL": "3600",
        ]
        let processes = ServiceProcesses(environment: common, logger: logger)
        do {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
            let store = try await processes.start(
                "store-service", "store", "SECUREPUSH_STORE_PORT", ["SECUREPUSH_AUTH_URL": auth.url])
            let dispatchA = try await processes.start(
                "dispatch-service", "dispatch-a", "SECUREPUSH_DISPATCH_PORT",
                ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": store.url])
            let dispatchB = try await processes.start(
                "dispatch-service", "dispatch-b", "SECUREPUSH_DISPATCH_PORT",
                ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": store.url])
            try await run(
                auth: auth, store: store, dispatchA: dispatchA, dispatchB: dispatchB, environment: common, url: url)
        } catch {
            await processes.stopAll(signal: SIGKILL)
            try? await TestPostgres.withDatabase(serviceName: "cleanup", migrations: [], url: url) { _ in }
            throw error
        }
        await processes.stopAll()
        try await TestPostgres.withDatabase(serviceName: "cleanup", migrations: [], url: url) { _ in }
    }

    private func run(
        auth: ServiceProcess, store: ServiceProcess, dispatchA: ServiceProcess, dispatchB: ServiceProcess,
        environment: [String: String], url: PostgresURL
    ) async throws {
        let device = try SecurePushDevice(
            endpoints: SecurePushEndpoints(auth: auth.url, store: store.url, dispatch: dispatchB.url), logger: logger)
        defer { Task { await device.shutdown() } }
        let userID = try await device.createAccount(username: "apps-replica-user", password: "long enough password")
        try await device.signIn(username: "apps-replica-user", password: "long enough password")
        // Both replicas have read the apps (none yet): the app must come by notification.
        let unknown = await #expect(throws: RPCError.self) {
            _ = try await device.register(device: .init(platform: .direct, appId: "retail-ios"))
        }
        #expect(unknown?.data == .object(["field": "appId"]))

        let key = P256.Signing.PrivateKey()
        let keyFile = TemporaryDirectory.processRootURL.appendingPathComponent("apps-\(UUID().uuidString).p8").path
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let created = try await StoreKeysCLITests.securepush(
            [
                "apps", "create", "--id", "retail-ios", "--name", "Retail", "--apns-key-file", keyFile,
                "--apns-key-id", "ABC123DEFG", "--apns-team-id", "TEAMRETAIL", "--apns-topic", "com.bank.retail",
            ], environment: environment)
        #expect(created.status == 0, "\(created.output)")
        let client = try await StoreKeysCLITests.securepush(
            [
                "clients", "create", "--id", "retail-backend", "--scope", "push:send", "--app", "retail-ios",
                "--secret", "retail-backend-secret-0123456789",
            ], environment: environment)
        #expect(client.status == 0, "\(client.output)")

        var deviceID: String?
        let started = ContinuousClock.now
        while deviceID == nil, ContinuousClock.now - started < .seconds(10) {
            deviceID = try? await device.register(device: .init(platform: .direct, appId: "retail-ios"))
            if deviceID == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let registered = try #require(deviceID, "dispatch-b never served the new app")
        #expect(ContinuousClock.now - started < .seconds(10))

        // Sent through the other replica, for the app: it knows the app as well.
        let backend = try SecurePushBackend(
            authURL: auth.url, dispatchURL: dispatchA.url, clientID: "retail-backend",
            clientSecret: "retail-backend-secret-0123456789", logger: logger)
        defer { Task { await backend.shutdown() } }
        let sent = try await backend.send(.init(recipientId: userID, payload: "for retail", appId: "retail-ios"))
        #expect(sent.deliveries.map(\.deviceId) == [registered])

        // What PostgreSQL holds for the app: sealed, no team id, no key.
        let pemLine = try #require(key.pemRepresentation.split(separator: "\n").dropFirst().first.map(String.init))
        try await TestPostgres.withDatabase(serviceName: "apps-check", migrations: [], url: url, dropSchema: false) {
            database in
            let rows = try await PostgresSQLDatabase(database).read(
                "SELECT id, display_name, credentials FROM app", [])
            let text = try rows.map { "\(try $0.decode(0, as: String.self)) \(try $0.decode(2, as: String.self))" }
                .joined(separator: "\n")
            #expect(text.hasPrefix("retail-ios aes256gcm:"))
            #expect(!text.contains("TEAMRETAIL"))
            #expect(!text.contains(pemLine))
        }
    }
}
