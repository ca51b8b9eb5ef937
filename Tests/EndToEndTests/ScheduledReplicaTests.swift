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

/// Scheduled sends on two push-dispatch replicas sharing PostgreSQL, as separate processes, one restarted before
/// the send is due.
@Suite(
    "Scheduled sends on PostgreSQL replicas",
    .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct ScheduledReplicaTests {
    let logger = Logger(label: "scheduled-replica-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "due with a replica restarted in between: pushed once, by one replica, within a second of sendAt; invisible before; a cancelled one never"
    )
    func scheduledAcrossRestart() async throws {
        let url = try TestPostgres.isolatedURL(schemaPrefix: "scheduled")
        let secret = "scheduled-backend-secret-\(UUID().uuidString)"
        let common = [
            "SECUREPUSH_DATABASE_URL": TestPostgres.url! + "&schema=\(url.schema!)",
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "bank-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": secret,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "scheduled-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10", "SECUREPUSH_REPLICA_LEASE": "2", "SECUREPUSH_DISPATCH_KEEPALIVE": "2",
            "SECUREPUSH_DATA_DIR": TemporaryDirectory.processRootURL.appendingPathComponent(
                "scheduled-\(UUID().uuidString)"
            ).path,
        ]
        let processes = ServiceProcesses(environment: common, logger: logger)
        do {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
            let store = try await processes.start(
                "store-service", "store", "SECUREPUSH_STORE_PORT", ["SECUREPUSH_AUTH_URL": auth.url])
            let dispatchEnvironment = ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": store.url]
            let dispatchA = try await processes.start(
                "dispatch-service", "dispatch-a", "SECUREPUSH_DISPATCH_PORT", dispatchEnvironment)
            let dispatchB = try await processes.start(
                "dispatch-service", "dispatch-b", "SECUREPUSH_DISPATCH_PORT", dispatchEnvironment)
            try await run(
                auth: auth, store: store, dispatchA: dispatchA, dispatchB: dispatchB, secret: secret,
                restartA: {
                    _ = await dispatchA.stop()
                    return try await processes.start(
                        "dispatch-service", "dispatch-a2", "SECUREPUSH_DISPATCH_PORT", dispatchEnvironment)
                })
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
        secret: String, restartA: () async throws -> ServiceProcess
    ) async throws {
        let device = try SecurePushDevice(
            endpoints: .init(auth: auth.url, store: store.url, dispatch: dispatchB.url), logger: logger)
        defer { Task { await device.shutdown() } }
        let password = "password-\(UUID().uuidString)"
        let userID = try await device.createAccount(username: "scheduled-user", password: password)
        try await device.signIn(username: "scheduled-user", password: password)
        let deviceID = try await device.register(device: .init(platform: .direct, name: "phone"))
        let received = ArrivalLog()
        let listener = Task {
            for try await id in device.notifications(deviceId: deviceID) { await received.record(id) }
        }
        defer { listener.cancel() }

        let backendA = try SecurePushBackend(
            authURL: auth.url, dispatchURL: dispatchA.url, clientID: "bank-backend", clientSecret: secret,
            logger: logger)
        // Whole seconds: what the wire carries back (sendAt in push.status).
        let sendAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 8).rounded(.up))
        let scheduled = try await backendA.send(
            Push.Send.Params(recipientId: userID, payload: "statement ready", sendAt: sendAt))
        let cancelled = try await backendA.send(
            Push.Send.Params(recipientId: userID, payload: "never shown", sendAt: sendAt))
        #expect(scheduled.deliveries.isEmpty)
        try await backendA.cancel(notificationId: cancelled.notificationId)
        try await backendA.cancel(notificationId: cancelled.notificationId)
        await backendA.shutdown()

        // Before it is due the recipient can neither fetch nor list it.
        let early = await #expect(throws: RPCError.self) { _ = try await device.fetch(scheduled.notificationId) }
        #expect(early?.code == RPCErrorCode.notFound)
        #expect(try await device.list().items.isEmpty)

        // Replica A restarts in between; both replicas look for due sends.
        let restartedA = try await restartA()
        let backend = try SecurePushBackend(
            authURL: auth.url, dispatchURL: restartedA.url, clientID: "bank-backend", clientSecret: secret,
            logger: logger)
        defer { Task { await backend.shutdown() } }
        let waiting = try await backend.status(notificationId: scheduled.notificationId)
        #expect(waiting.state == .scheduled)
        #expect(waiting.sendAt == sendAt)
        #expect(await eventually(timeout: .seconds(30)) { await received.ids.count >= 1 })
        let arrival = try #require(await received.arrivals.first)
        #expect(arrival.id == scheduled.notificationId)
        let lateness = arrival.at.timeIntervalSince(sendAt)
        #expect(lateness >= 0, "pushed \(-lateness) s before its time")
        #expect(lateness < 1, "pushed \(lateness) s after its time")
        // Exactly once: one delivery, and no second arrival; the cancelled one never.
        try await Task.sleep(for: .seconds(2))
        #expect(await received.ids == [scheduled.notificationId])
        let status = try await backend.status(notificationId: scheduled.notificationId)
        #expect(status.state == .sent)
        #expect(status.deliveries.map(\.deviceId) == [deviceID])
        #expect(try await backend.status(notificationId: cancelled.notificationId).state == .cancelled)
        #expect(try await device.fetch(scheduled.notificationId).payload == "statement ready")
        let gone = await #expect(throws: RPCError.self) { _ = try await device.fetch(cancelled.notificationId) }
        #expect(gone?.code == RPCErrorCode.notFound)
        let tooLate = await #expect(throws: RPCError.self) {
            try await backend.cancel(notificationId: scheduled.notificationId)
        }
        #expect(tooLate?.code == RPCErrorCode.conflict)
    }
}

/// The ids a device's stream yielded, with when each arrived.
private actor ArrivalLog {
    private(set) var arrivals: [(id: String, at: Date)] = []
    var ids: [String] { arrivals.map(\.id) }

    func record(_ id: String) { arrivals.append((id, Date())) }
}
