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

/// Several replicas of each service on one PostgreSQL, as separate processes, with one killed mid-run.
@Suite("Replicas on PostgreSQL", .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct ReplicaTests {
    static let users = 8
    static let sends = 2_000
    let logger = Logger(label: "replica-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "two dispatch and two store replicas, one dispatch killed mid-run: every id delivered once, every payload fetched, nothing left queued"
    )
    func killOneDispatchReplica() async throws {
        let url = try TestPostgres.isolatedURL(schemaPrefix: "replicas")
        let secret = "replica-backend-secret-\(UUID().uuidString)"
        let common = [
            "SECUREPUSH_DATABASE_URL": TestPostgres.url! + "&schema=\(url.schema!)",
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "replica-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": secret,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "replica-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10",
            // A's sends in flight when it is killed are freed by its lapsed lease (2 s), not by the timeout: the
            // retries below give up after 10 s.
            "SECUREPUSH_IDEMPOTENCY_TIMEOUT": "60", "SECUREPUSH_REPLICA_LEASE": "2",
            "SECUREPUSH_DISPATCH_KEEPALIVE": "2",
            "SECUREPUSH_DATA_DIR": TemporaryDirectory.processRootURL.appendingPathComponent(
                "replicas-\(UUID().uuidString)"
            ).path,
        ]
        let processes = ServiceProcesses(environment: common, logger: logger)
        do {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
            let storeA = try await processes.start(
                "store-service", "store-a", "SECUREPUSH_STORE_PORT", ["SECUREPUSH_AUTH_URL": auth.url])
            let storeB = try await processes.start(
                "store-service", "store-b", "SECUREPUSH_STORE_PORT", ["SECUREPUSH_AUTH_URL": auth.url])
            let dispatchA = try await processes.start(
                "dispatch-service", "dispatch-a", "SECUREPUSH_DISPATCH_PORT",
                ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": storeA.url])
            let dispatchB = try await processes.start(
                "dispatch-service", "dispatch-b", "SECUREPUSH_DISPATCH_PORT",
                ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": storeB.url])
            try await run(
                auth: auth, stores: [storeA, storeB], dispatchA: dispatchA, dispatchB: dispatchB, secret: secret,
                url: url)
        } catch {
            await processes.stopAll(signal: SIGKILL)
            try? await dropSchema(url)
            throw error
        }
        await processes.stopAll()
        try await dropSchema(url)
    }

    private func run(
        auth: ServiceProcess, stores: [ServiceProcess], dispatchA: ServiceProcess, dispatchB: ServiceProcess,
        secret: String, url: PostgresURL
    ) async throws {
        // Devices: one direct device per user, streaming from the replica that survives, fetching from either store.
        var devices: [(device: SecurePushDevice, userID: String, deviceID: String)] = []
        for index in 0..<Self.users {
            let endpoints = SecurePushEndpoints(
                auth: auth.url, store: stores[index % 2].url, dispatch: dispatchB.url)
            let device = try SecurePushDevice(endpoints: endpoints, logger: logger)
            let password = "password-\(UUID().uuidString)"
            let userID = try await device.createAccount(username: "replica-user-\(index)", password: password)
            try await device.signIn(username: "replica-user-\(index)", password: password)
            let deviceID = try await device.register(device: .init(platform: .direct, name: "device-\(index)"))
            devices.append((device, userID, deviceID))
        }
        let received = ReceivedLog()
        let devicesSnapshot = devices
        let listeners = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (device, userID, deviceID) in devicesSnapshot {
                    group.addTask {
                        for try await id in device.notifications(deviceId: deviceID) {
                            let notification = try await device.fetch(id)
                            await received.record(userID: userID, id: id, payload: notification.payload ?? "")
                            try await device.acknowledge(deviceId: deviceID, notificationId: id)
                            if await received.total >= Self.sends { return }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        defer { listeners.cancel() }

        // Sends, spread over both dispatch replicas; dispatch A is killed a third of the way in, and every call it
        // was handling is retried on B with the same idempotency key.
        let backends = try [dispatchA, dispatchB].map {
            try SecurePushBackend(
                authURL: auth.url, dispatchURL: $0.url, clientID: "replica-backend", clientSecret: secret,
                configuration: .init(requestTimeout: .seconds(30)), logger: logger)
        }
        let expected = ExpectedLog()
        let killed = KillSwitch()
        try await withThrowingTaskGroup(of: Void.self) { group in
            let workers = 16
            for worker in 0..<workers {
                group.addTask {
                    for index in stride(from: worker, to: Self.sends, by: workers) {
                        let (_, userID, _) = devicesSnapshot[index % Self.users]
                        let payload = "payload \(index) for \(userID)"
                        let params = Push.Send.Params(
                            recipientId: userID, payload: payload, idempotencyKey: "send-\(index)")
                        if index == Self.sends / 3 { await killed.kill(dispatchA) }
                        var result: Push.Send.Result?
                        var lastError: (any Error)?
                        let alreadyKilled = await killed.isKilled
                        var useB = index % 2 == 1 || alreadyKilled
                        for _ in 0..<40 where result == nil {
                            do {
                                result = try await backends[useB ? 1 : 0].send(params)
                            } catch let error as RPCError where error.code == -32009 {
                                lastError = error
                                try await Task.sleep(for: .milliseconds(250))  // A died holding the key
                            } catch {
                                lastError = error
                                useB = true  // A is gone: same key, other replica
                            }
                        }
                        let sent = try #require(
                            result, "send \(index) never succeeded; last error: \(String(describing: lastError))")
                        await expected.record(userID: userID, id: sent.notificationId, payload: payload)
                    }
                }
            }
            try await group.waitForAll()
        }
        for backend in backends { await backend.shutdown() }
        #expect(await killed.isKilled)

        // Every notification reaches its user's device exactly once (bounded wait).
        for _ in 0..<600 where await received.total < Self.sends {
            try await Task.sleep(for: .milliseconds(100))
        }
        let expectedByUser = await expected.byUser
        let receivedByUser = await received.byUser
        #expect(await expected.count == Self.sends)
        #expect(await received.total == Self.sends)
        #expect(await received.duplicates == 0)
        for (userID, notifications) in expectedByUser {
            let got = receivedByUser[userID] ?? [:]
            let missing = Set(notifications.keys).subtracting(got.keys)
            let foreign = Set(got.keys).subtracting(notifications.keys)
            let wrongPayloads = notifications.filter { got[$0.key] != nil && got[$0.key] != $0.value }.count
            #expect(
                missing.isEmpty && foreign.isEmpty && wrongPayloads == 0,
                "user \(userID): \(missing.count) missing, \(foreign.count) not theirs, \(wrongPayloads) wrong payloads; e.g. missing \(missing.prefix(3))"
            )
        }
        for (device, _, _) in devices { await device.shutdown() }
        listeners.cancel()

        // Nothing is left queued, and each idempotency key produced one notification.
        try await TestPostgres.withDatabase(serviceName: "push-dispatch", migrations: [], url: url) { database in
            try await database.withClient { client in
                let rows = try await client.query(
                    "SELECT status, count(*) FROM delivery GROUP BY status ORDER BY status")
                var statuses: [String: Int64] = [:]
                for try await (status, count) in rows.decode((String, Int64).self) { statuses[status] = count }
                #expect(statuses == ["acknowledged": Int64(Self.sends)])
                var sends: Int64 = 0
                for try await count in try await client.query("SELECT count(*) FROM push_send").decode(Int64.self) {
                    sends = count
                }
                #expect(sends == Int64(Self.sends))
            }
        }
    }

    private func dropSchema(_ url: PostgresURL) async throws {
        try await TestPostgres.withDatabase(serviceName: "cleanup", migrations: [], url: url) { _ in }
    }
}

/// What the backend sent, by user: notification id → payload.
private actor ExpectedLog {
    var byUser: [String: [String: String]] = [:]
    var count: Int { byUser.values.map(\.count).reduce(0, +) }

    func record(userID: String, id: String, payload: String) {
        byUser[userID, default: [:]][id] = payload
    }
}

/// What the devices received and fetched, by user, counting ids seen twice.
private actor ReceivedLog {
    var byUser: [String: [String: String]] = [:]
    var total = 0
    var duplicates = 0

    func record(userID: String, id: String, payload: String) {
        if byUser[userID]?[id] != nil { duplicates += 1 }
        byUser[userID, default: [:]][id] = payload
        total += 1
    }
}

/// Kills dispatch A once, however many workers reach the trigger.
private actor KillSwitch {
    private(set) var isKilled = false

    func kill(_ process: ServiceProcess) async {
        guard !isKilled else { return }
        isKilled = true
        await process.stop(signal: SIGKILL)
    }
}
