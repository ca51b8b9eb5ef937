import ChildProcesses
import Foundation
import Logging
import SecurePushClient
import ServiceCore
import SharedModels
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The audit trail and erasure with separate service processes on PostgreSQL, push-dispatch as two replicas.
@Suite(
    "Audit trail and erasure on PostgreSQL replicas",
    .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct ErasureReplicaTests {
    let logger = Logger(label: "erasure-replica-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The built `securepush` CLI with `environment`; its status and output.
    static func securepush(_ arguments: [String], environment: [String: String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = ServiceProcess.buildDirectory.appendingPathComponent("securepush")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SECUREPUSH_") }
            .merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        let result = try await process.runCapturingOutput()
        return (result.status, String(decoding: result.output, as: UTF8.self) + result.error)
    }

    /// `pg_dump` of `schema`, as text.
    static func dump(schema: String) async throws -> String {
        let binaries = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")
            .map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }.filter { FileManager.default.isExecutableFile(atPath: $0) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(binaries.first, "pg_dump is not installed"))
        let base = try #require(TestPostgres.url).components(separatedBy: "?")[0]
        process.arguments = ["--schema=\(schema)", "--no-owner", base]
        process.standardInput = FileHandle.nullDevice
        let result = try await process.runCapturingOutput()
        #expect(result.status == 0, "\(result.error)")
        return String(decoding: result.output, as: UTF8.self)
    }

    @Test(
        "concurrent sends through two replicas lose no audit entry; users.delete interrupted by a store outage and a kill -9 of auth finishes after restart: no row and no line of a pg_dump names the user, and every replica answers -32004"
    )
    func replicas() async throws {
        let url = try TestPostgres.isolatedURL(schemaPrefix: "erasure")
        let schema = try #require(url.schema)
        let data = TemporaryDirectory.processRootURL.appendingPathComponent("erasure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let auditKey = data.appendingPathComponent("audit.pem").path
        _ = try AuditSigningKey.loadOrCreate(path: auditKey)
        let secret = "erasure-backend-secret-\(UUID().uuidString)"
        let ports = try LoopbackPort.free(count: 4)
        let (authURL, storeURL) = ("http://127.0.0.1:\(ports[0])", "http://127.0.0.1:\(ports[1])")
        let dispatchURLs = ["http://127.0.0.1:\(ports[2])", "http://127.0.0.1:\(ports[3])"]
        let common = [
            "SECUREPUSH_DATABASE_URL": TestPostgres.url! + "&schema=\(schema)",
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "bank-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": secret,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "erasure-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_STORE_CLIENT_ID": "notification-store",
            "SECUREPUSH_STORE_CLIENT_SECRET": "erasure-store-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10", "SECUREPUSH_DATA_DIR": data.path,
            "SECUREPUSH_AUDIT_KEY_FILE": auditKey,
            "SECUREPUSH_AUDIT_CHECKPOINT_DIR": data.appendingPathComponent("checkpoints").path,
            "SECUREPUSH_AUTH_URL": authURL, "SECUREPUSH_STORE_URL": storeURL,
            "SECUREPUSH_DISPATCH_URL": dispatchURLs[0],
        ]
        let processes = ServiceProcesses(environment: common, logger: logger)
        do {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT", port: ports[0])
            let store = try await processes.start("store-service", "store", "SECUREPUSH_STORE_PORT", port: ports[1])
            for (index, port) in ports[2...].enumerated() {
                _ = try await processes.start(
                    "dispatch-service", "dispatch-\(index)", "SECUREPUSH_DISPATCH_PORT", port: port)
            }
            try await run(
                auth: auth, store: store, dispatchURLs: dispatchURLs, processes: processes, ports: ports,
                secret: secret, schema: schema, common: common)
        } catch {
            await processes.stopAll(signal: SIGKILL)
            try? await TestPostgres.withDatabase(serviceName: "cleanup", migrations: [], url: url) { _ in }
            throw error
        }
        await processes.stopAll()
        // Every replica's chain, each process's: all verify, and no send went unrecorded.
        let verified = try await Self.securepush(["audit", "verify"], environment: common)
        #expect(verified.0 == 0, "\(verified.1)")
        #expect(verified.1.contains("ok push-dispatch: "), "\(verified.1)")
        let exported = try await Self.securepush(["audit", "export", "--since", "1h"], environment: common)
        #expect(exported.0 == 0)
        let sends = exported.1.split(separator: "\n").filter { $0.contains(#""type":"push.send""#) }.count
        #expect(sends == 2 * Self.sendsPerReplica + 2, "the victim's 80 and the bystander's 2")
        try await TestPostgres.withDatabase(serviceName: "cleanup", migrations: [], url: url) { _ in }
    }

    static let sendsPerReplica = 40

    private func run(
        auth: ServiceProcess, store: ServiceProcess, dispatchURLs: [String], processes: ServiceProcesses,
        ports: [Int], secret: String, schema: String, common: [String: String]
    ) async throws {
        let backends = try dispatchURLs.map {
            try SecurePushBackend(
                authURL: auth.url, dispatchURL: $0, clientID: "bank-backend", clientSecret: secret, logger: logger)
        }
        defer { for backend in backends { Task { await backend.shutdown() } } }
        let endpoints = SecurePushEndpoints(auth: auth.url, store: store.url, dispatch: dispatchURLs[1])
        let victim = try SecurePushDevice(endpoints: endpoints, logger: logger)
        let bystander = try SecurePushDevice(endpoints: endpoints, logger: logger)
        defer { for device in [victim, bystander] { Task { await device.shutdown() } } }
        let password = "password-\(UUID().uuidString)"
        let victimName = "victim-\(UUID().uuidString.prefix(8).lowercased())"
        let victimID = try await victim.createAccount(username: victimName, password: password)
        try await victim.signIn(username: victimName, password: password)
        let victimDevice = try await victim.register(device: .init(platform: .direct, name: "phone"), key: DeviceKey())
        let bystanderID = try await bystander.createAccount(
            username: "bystander-\(UUID().uuidString.prefix(8).lowercased())", password: password)

        // Both replicas send to the victim at once (each remembers them as a recipient).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for backend in backends {
                for index in 0..<Self.sendsPerReplica {
                    group.addTask { _ = try await backend.send(.init(recipientId: victimID, payload: "m \(index)")) }
                }
            }
            try await group.waitForAll()
        }
        _ = try await backends[0].send(.init(recipientId: bystanderID, payload: "kept"))

        // The store goes down: auth's and push-dispatch's parts are done, the store's waits.
        _ = await store.stop(signal: SIGKILL)
        try await victim.signIn(username: victimName, password: password)
        let interrupted = try #require(await #expect(throws: RPCError.self) { try await victim.deleteAccount() })
        #expect(interrupted.code == RPCErrorCode.unavailable)
        guard case .object(let data)? = interrupted.data, case .string(let erasureID)? = data["erasureId"] else {
            Issue.record("no erasureId: \(String(describing: interrupted.data))")
            return
        }
        // auth dies too, mid-way; both come back and auth finishes the erasure by itself.
        _ = await auth.stop(signal: SIGKILL)
        // auth first: the store is ready once it has auth's keys. auth's resumer reaches it within seconds.
        _ = try await processes.start("auth-service", "auth-2", "SECUREPUSH_AUTH_PORT", port: ports[0])
        _ = try await processes.start("store-service", "store-2", "SECUREPUSH_STORE_PORT", port: ports[1])
        let finished = await eventually(timeout: .seconds(30)) {
            (try? await Self.dump(schema: schema)).map { !$0.contains(victimID) } ?? false
        }
        #expect(finished, "erasure \(erasureID) did not finish after the restart")

        for backend in backends {
            let refused = await #expect(throws: RPCError.self) {
                try await backend.send(.init(recipientId: victimID, payload: "after erasure"))
            }
            #expect(refused?.code == RPCErrorCode.notFound)
        }
        let dump = try await Self.dump(schema: schema)
        for value in [victimID, victimName, victimDevice] {
            #expect(!dump.contains(value), "\(value) is still in the pg_dump")
        }
        #expect(dump.contains(bystanderID), "the bystander is untouched (and the dump shows rows)")
        _ = try await backends[0].send(.init(recipientId: bystanderID, payload: "still here"))
    }
}
