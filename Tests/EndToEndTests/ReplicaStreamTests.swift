import Foundation
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Event streams across push-dispatch replicas on one PostgreSQL, as separate processes.
@Suite(
    "Event streams across replicas on PostgreSQL",
    .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct ReplicaStreamTests {
    let logger = Logger(label: "replica-stream-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a device unregistered on one replica ends its stream on the other at once (keepalive and sweep far off)")
    func unregisterOnAnotherReplica() async throws {
        let url = try TestPostgres.isolatedURL(schemaPrefix: "replicastreams")
        let common = [
            "SECUREPUSH_DATABASE_URL": TestPostgres.url! + "&schema=\(url.schema!)",
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "replica-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10",
            "SECUREPUSH_DISPATCH_KEEPALIVE": "60", "SECUREPUSH_DISPATCH_SWEEP_INTERVAL": "600",
            "SECUREPUSH_DATA_DIR": TemporaryDirectory.processRootURL.appendingPathComponent(
                "replicastreams-\(UUID().uuidString)"
            ).path,
        ]
        let processes = ServiceProcesses(environment: common, logger: logger)
        try await withFinally {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
            let store = try await processes.start(
                "store-service", "store", "SECUREPUSH_STORE_PORT", ["SECUREPUSH_AUTH_URL": auth.url])
            let peers = ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": store.url]
            let dispatchA = try await processes.start(
                "dispatch-service", "dispatch-a", "SECUREPUSH_DISPATCH_PORT", peers)
            let dispatchB = try await processes.start(
                "dispatch-service", "dispatch-b", "SECUREPUSH_DISPATCH_PORT", peers)

            let authClient = try PeerClient(url: auth.url, peerName: "auth", caFile: nil, logger: logger)
            let replicaA = try PeerClient(url: dispatchA.url, peerName: "push-dispatch", caFile: nil, logger: logger)
            try await withFinally {
                _ = try await authClient.rpc.call(
                    Auth.Register.self, .init(username: "ada", password: "password-0123456789"))
                let grant = try await authClient.rpc.call(
                    Auth.Login.self, .init(username: "ada", password: "password-0123456789"))
                let device = try await replicaA.rpc.call(
                    Devices.Register.self, .init(platform: .direct), token: grant.accessToken
                ).deviceId

                let started = ContinuousClock.now
                async let held = Curl.run([
                    "--http2-prior-knowledge", "-N", "-H", "Authorization: Bearer \(grant.accessToken)",
                    "\(dispatchB.url)/devices/\(device)/events",
                ])
                try await Task.sleep(for: .seconds(2))  // the stream on B is open
                _ = try await replicaA.rpc.call(
                    Devices.Unregister.self, .init(deviceId: device), token: grant.accessToken)
                let result = try await held
                #expect(result.status == 200)
                #expect(
                    ContinuousClock.now - started < .seconds(8), "the stream on the other replica outlived unregister")
            } finally: {
                for peer in [authClient, replicaA] { await peer.shutdown() }
            }
            await processes.stopAll()
        } finally: {
            for process in processes.all { await process.stop(signal: SIGKILL) }
            try? await TestPostgres.withDatabase(serviceName: "cleanup", migrations: [], url: url) { _ in }
        }
    }
}
