import Foundation
import Logging
import SecurePushClient
import SharedModels
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Graceful shutdown of the service processes")
struct GracefulShutdownTests {
    let logger = Logger(label: "shutdown-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "SIGTERM with a client that never answers and an open event stream: every service exits 0 in under 3 s"
    )
    func exitsPromptlyWhateverClientsDo() async throws {
        let dataDirectory = TemporaryDirectory.processRootURL.appendingPathComponent(
            "shutdown-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let common = [
            "SECUREPUSH_DATA_DIR": dataDirectory,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "shutdown-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10",
            // The defaults: nothing below depends on a shortened timeout.
            "SECUREPUSH_SHUTDOWN_TIMEOUT": "10", "SECUREPUSH_IDLE_TIMEOUT": "120",
        ]
        let processes = ServiceProcesses(environment: common, logger: logger)
        do {
            let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
            let store = try await processes.start(
                "store-service", "store", "SECUREPUSH_STORE_PORT", ["SECUREPUSH_AUTH_URL": auth.url])
            let dispatch = try await processes.start(
                "dispatch-service", "dispatch", "SECUREPUSH_DISPATCH_PORT",
                ["SECUREPUSH_AUTH_URL": auth.url, "SECUREPUSH_STORE_URL": store.url])

            let device = try SecurePushDevice(
                endpoints: .init(auth: auth.url, store: store.url, dispatch: dispatch.url), logger: logger)
            _ = try await device.createAccount(username: "shutdown-user", password: "shutdown password 1234")
            try await device.signIn(username: "shutdown-user", password: "shutdown password 1234")
            let deviceId = try await device.register(device: .init(platform: .direct, name: "shutdown"))
            let token = try #require(await device.session?.accessToken)
            await device.shutdown()

            // An open event stream, and on every service a connection whose client never answers anything.
            let stream = try RawHTTP2Connection(port: dispatch.port)
            try stream.sendPreface()
            try stream.sendGET("/devices/\(deviceId)/events", bearer: token)
            let silent = try processes.all.map { process in
                let connection = try RawHTTP2Connection(port: process.port)
                try connection.sendPreface()
                return connection
            }
            try await Task.sleep(for: .milliseconds(300))

            for process in processes.all.reversed() {
                let started = ContinuousClock.now
                let status = await process.stop(signal: SIGTERM)
                let elapsed = ContinuousClock.now - started
                #expect(status == 0, "\(process.name) exited with \(status)")
                #expect(elapsed < .seconds(3), "\(process.name) took \(elapsed) to exit")
            }
            let (_, streamClosed) = stream.readUntilClosed(timeout: .seconds(1))
            #expect(streamClosed)
            _ = silent
        } catch {
            await processes.stopAll(signal: SIGKILL)
            throw error
        }
    }
}
