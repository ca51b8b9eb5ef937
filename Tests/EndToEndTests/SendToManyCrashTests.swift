import AuthService
import DispatchService
import Foundation
import Logging
import SecurePushClient
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `push.send` to 10,000 recipients against the three services as separate processes on SQLite, with push-dispatch
/// killed (SIGKILL) halfway and the call retried with the same idempotency key on its restart.
@Suite("push.send to 10,000 recipients across a crash")
struct SendToManyCrashTests {
    static let seededUsers = 9_995
    static let seededDevices = 500
    let logger = Logger(label: "send-many-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "killed halfway, retried with the same key: exactly one notification per known recipient, each device's job once, unknown recipients listed"
    )
    func killedHalfwayThenRetried() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("send-many-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "send-many-backend-secret-\(UUID().uuidString)"
        let common = [
            "SECUREPUSH_DATA_DIR": directory.path,
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "bank-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": secret,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "send-many-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10",
        ]
        // Seeded through the repositories, as the issue asks: 10,000 bcrypt registrations would take minutes.
        let seeded = try await Self.seed(directory)

        let processes = ServiceProcesses(environment: common, logger: logger)
        do {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
            let store = try await processes.start(
                "store-service", "store", "SECUREPUSH_STORE_PORT", ["SECUREPUSH_AUTH_URL": auth.url])
            let dispatchEnvironment = ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": store.url]
            let dying = try await processes.start(
                "dispatch-service", "dispatch", "SECUREPUSH_DISPATCH_PORT", dispatchEnvironment)
            try await run(
                seeded: seeded, auth: auth, store: store, dying: dying, secret: secret, directory: directory,
                restart: {
                    try await processes.start(
                        "dispatch-service", "dispatch-restarted", "SECUREPUSH_DISPATCH_PORT", dispatchEnvironment)
                })
        } catch {
            await processes.stopAll(signal: SIGKILL)
            throw error
        }
        await processes.stopAll()
    }

    private func run(
        seeded: [String], auth: ServiceProcess, store: ServiceProcess, dying: ServiceProcess, secret: String,
        directory: URL, restart: () async throws -> ServiceProcess
    ) async throws {
        // Three people who sign in and stream on the direct channel once push-dispatch is back.
        var people: [(username: String, password: String, userID: String, deviceID: String)] = []
        for index in 0..<3 {
            let device = try SecurePushDevice(
                endpoints: .init(auth: auth.url, store: store.url, dispatch: dying.url), logger: logger)
            let password = "password-\(UUID().uuidString)"
            let userID = try await device.createAccount(username: "streamer-\(index)", password: password)
            try await device.signIn(username: "streamer-\(index)", password: password)
            let deviceID = try await device.register(device: .init(platform: .direct, name: "phone-\(index)"))
            people.append(("streamer-\(index)", password, userID, deviceID))
            await device.shutdown()
        }
        let unknown = [UUID().uuidString.lowercased(), UUID().uuidString.lowercased()]
        let recipients = seeded + people.map(\.userID) + unknown
        try #require(recipients.count == Push.SendToMany.maxRecipients)
        let params = Push.SendToMany.Params(
            recipientIds: recipients, payload: "Your statement is ready.", idempotencyKey: "statement-2026-11")

        let storeDatabase = try ServiceDatabase.sqlite(
            path: directory.appendingPathComponent("store.sqlite").path, migrations: StoreMigrations.all)
        let dispatchDatabase = try ServiceDatabase.sqlite(
            path: directory.appendingPathComponent("dispatch.sqlite").path, migrations: DispatchMigrations.all)
        func count(_ database: ServiceDatabase, _ sql: String) async throws -> Int {
            try await database.sql.readOne(sql, [])?.decode(0, as: Int.self) ?? -1
        }

        // The first call: push-dispatch is killed once the store holds two of its batches.
        let first = try SecurePushBackend(
            authURL: auth.url, dispatchURL: dying.url, clientID: "bank-backend", clientSecret: secret,
            configuration: .init(requestTimeout: .seconds(120)), logger: logger)
        let call = Task { try await first.send(params) }
        var storedAtKill = 0
        for _ in 0..<60_000 {
            storedAtKill = try await count(storeDatabase, "SELECT COUNT(*) FROM notification")
            if storedAtKill >= 2 * 900 { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        _ = await dying.stop(signal: SIGKILL)
        let outcome = await call.result
        await first.shutdown()
        try #require(storedAtKill >= 1_800, "the store never held two batches")
        guard case .failure = outcome else {
            Issue.record("the call finished before push-dispatch was killed: nothing was tested")
            return
        }
        let recordedAtKill = try await count(dispatchDatabase, "SELECT COUNT(*) FROM push_send")
        #expect(recordedAtKill < recipients.count - unknown.count, "killed halfway, not after the end")

        // The retry, on the restarted push-dispatch, with the same key.
        let restarted = try await restart()
        let backend = try SecurePushBackend(
            authURL: auth.url, dispatchURL: restarted.url, clientID: "bank-backend", clientSecret: secret,
            configuration: .init(requestTimeout: .seconds(120)), logger: logger)
        defer { Task { await backend.shutdown() } }
        let result = try await backend.send(params)
        let known = recipients.count - unknown.count
        #expect(result.notifications.map(\.recipientId) == Array(recipients.prefix(known)))
        #expect(result.unknownRecipientIds == unknown)
        #expect(Set(result.notifications.map(\.notificationId)).count == known)

        // Exactly one notification per recipient in the store, one send each in push-dispatch, one job per device.
        #expect(try await count(storeDatabase, "SELECT COUNT(*) FROM notification") == known)
        #expect(try await count(storeDatabase, "SELECT COUNT(DISTINCT recipient_id) FROM notification") == known)
        #expect(try await count(dispatchDatabase, "SELECT COUNT(*) FROM push_send") == known)
        let devices = Self.seededDevices + people.count
        #expect(try await count(dispatchDatabase, "SELECT COUNT(DISTINCT device_id) FROM delivery") == devices)
        #expect(try await count(dispatchDatabase, "SELECT COUNT(*) FROM delivery") == devices)
        // The same call again answers the same result, from the key alone.
        #expect(try await backend.send(params) == result)

        // Each streaming person's device gets its one id, fetches the payload and gets nothing more.
        let id = Dictionary(uniqueKeysWithValues: result.notifications.map { ($0.recipientId, $0.notificationId) })
        for person in people {
            let device = try SecurePushDevice(
                endpoints: .init(auth: auth.url, store: store.url, dispatch: restarted.url), logger: logger)
            try await device.signIn(username: person.username, password: person.password)
            let received = ReceivedIDs()
            let listener = Task {
                for try await notificationID in device.notifications(deviceId: person.deviceID) {
                    await received.append(notificationID)
                }
            }
            #expect(await eventually(timeout: .seconds(30)) { await received.ids.count >= 1 })
            try await Task.sleep(for: .seconds(1))
            listener.cancel()
            #expect(await received.ids == [id[person.userID]])
            if let first = await received.ids.first {
                #expect(try await device.fetch(first).payload == "Your statement is ready.")
            }
            await device.shutdown()
        }
        try storeDatabase.sqlite?.close()
        try dispatchDatabase.sqlite?.close()
    }

    /// 9,995 users in auth's database and a direct device for each of the first 500 in push-dispatch's, written
    /// before the services start.
    static func seed(_ directory: URL) async throws -> [String] {
        let authDatabase = try ServiceDatabase.sqlite(
            path: directory.appendingPathComponent("auth.sqlite").path, migrations: AuthMigrations.all)
        let users = SQLAuthRepository(database: authDatabase.sql)
        var ids: [String] = []
        for index in 0..<seededUsers {
            let id = UUID().uuidString.lowercased()
            try await users.insertUser(
                UserRecord(id: id, username: "seeded-\(index)", passwordHash: "$2b$10$unused", createdAt: Date()))
            ids.append(id)
        }
        try authDatabase.sqlite?.close()
        let dispatchDatabase = try ServiceDatabase.sqlite(
            path: directory.appendingPathComponent("dispatch.sqlite").path, migrations: DispatchMigrations.all)
        let devices = SQLDeviceRepository(database: dispatchDatabase.sql)
        for id in ids.prefix(seededDevices) {
            _ = try await devices.register(ownerID: id, platform: .direct, token: nil, name: "seeded", now: Date())
        }
        try dispatchDatabase.sqlite?.close()
        return ids
    }
}

/// The ids one device's stream yielded, in order.
private actor ReceivedIDs {
    private(set) var ids: [String] = []

    func append(_ id: String) { ids.append(id) }
}
