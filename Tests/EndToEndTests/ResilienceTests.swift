import AuthService
import DispatchService
import Foundation
import SecurePushClient
import SecurePushStack
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

/// The three services started one by one, so a test can stop and restart one of them.
final class SeparateServices: @unchecked Sendable {
    var environment: [String: String]
    let directory: String
    let backendSecret = "backend-secret-\(UUID().uuidString)"
    let logger = TestStack.logger()
    var auth: RunningService!
    var store: RunningService!
    var dispatch: RunningService!

    init() {
        directory =
            TemporaryDirectory.processRootURL.appendingPathComponent("securepush-e2e-\(UUID().uuidString)").path
        environment = TestStack.environment(
            mode: .cleartext, dataDirectory: directory, backendSecret: backendSecret, certificates: nil)
    }

    func startAll() async throws {
        let environment = self.environment
        let logger = self.logger
        auth = try await RunningService.start(name: "auth", logger: logger) { onRunning in
            try await AuthPlan.make(
                environment: ServiceEnvironment(environment), logger: logger, tracer: nil, onServerRunning: onRunning)
        }
        self.environment["SECUREPUSH_AUTH_URL"] = "http://127.0.0.1:\(auth.port)"
        try await startStore(port: 0)
        self.environment["SECUREPUSH_STORE_URL"] = "http://127.0.0.1:\(store.port)"
        let dispatchEnvironment = self.environment
        dispatch = try await RunningService.start(name: "push-dispatch", logger: logger) { onRunning in
            try await DispatchPlan.make(
                environment: ServiceEnvironment(dispatchEnvironment), logger: logger, tracer: nil,
                onServerRunning: onRunning)
        }
    }

    /// Starts notification-store on `port` (0 for any) over the same data directory.
    func startStore(port: Int) async throws {
        var environment = self.environment
        environment["SECUREPUSH_STORE_PORT"] = "\(port)"
        let storeEnvironment = environment
        let logger = self.logger
        store = try await RunningService.start(name: "notification-store", logger: logger) { onRunning in
            try await StorePlan.make(
                environment: ServiceEnvironment(storeEnvironment), logger: logger, tracer: nil,
                onServerRunning: onRunning)
        }
    }

    var endpoints: SecurePushEndpoints {
        SecurePushEndpoints(
            auth: "http://127.0.0.1:\(auth.port)", store: "http://127.0.0.1:\(store.port)",
            dispatch: "http://127.0.0.1:\(dispatch.port)")
    }

    func backend() throws -> SecurePushBackend {
        try SecurePushBackend(
            authURL: endpoints.auth, dispatchURL: endpoints.dispatch, clientID: "test-backend",
            clientSecret: backendSecret, logger: logger)
    }

    /// Starts all three services, runs `body`, then stops them, awaited, whether starting or `body` threw or not.
    static func with<T>(_ body: (SeparateServices) async throws -> T) async throws -> T {
        let services = SeparateServices()
        do {
            try await services.startAll()
            let result = try await body(services)
            await services.stopAll()
            return result
        } catch {
            await services.stopAll()
            throw error
        }
    }

    func stopAll() async {
        await dispatch?.stop()
        await store?.stop()
        await auth?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite("Restarts and outages")
struct ResilienceTests {
    @Test("notifications survive a restart of the store, and clients reconnect by themselves")
    func storeRestartKeepsNotifications() async throws {
        try await SeparateServices.with { services in
            let device = try SecurePushDevice(endpoints: services.endpoints, logger: services.logger)
            let userId = try await device.createAccount(username: "restart-user", password: "long enough password")
            try await device.signIn(username: "restart-user", password: "long enough password")
            let backend = try services.backend()
            let before = try await backend.send(.init(recipientId: userId, payload: "kept across restarts"))

            let port = services.store.port
            await services.store.stop()
            try await services.startStore(port: port)

            // The device's connection to the old process is gone; the SDK reconnects to the new one.
            #expect(try await device.fetch(before.notificationId).payload == "kept across restarts")
            // push-dispatch reconnects to the store too.
            let after = try await backend.send(.init(recipientId: userId, payload: "after the restart"))
            #expect(try await device.fetch(after.notificationId).payload == "after the restart")
            await device.shutdown()
            await backend.shutdown()
        }
    }

    @Test(
        "with the store down, push.send fails with -32050 and records nothing; the same idempotency key works once it is back"
    )
    func storeDownGivesUnavailable() async throws {
        try await SeparateServices.with { services in
            let device = try SecurePushDevice(endpoints: services.endpoints, logger: services.logger)
            let userId = try await device.createAccount(username: "outage-user", password: "long enough password")
            try await device.signIn(username: "outage-user", password: "long enough password")
            let deviceId = try await device.register(device: .init(platform: .direct))
            let backend = try services.backend()

            let port = services.store.port
            await services.store.stop()
            let failure = await #expect(throws: RPCError.self) {
                try await backend.send(
                    .init(recipientId: userId, payload: "during the outage", idempotencyKey: "order-42"))
            }
            #expect(failure?.code == RPCErrorCode.unavailable)
            #expect(failure?.message.contains("notification-store") == true)

            try await services.startStore(port: port)
            // A retry is the same call: the key keeps what it was first used with (another payload is -32602).
            let sent = try await backend.send(
                .init(recipientId: userId, payload: "during the outage", idempotencyKey: "order-42"))
            #expect(sent.deliveries.map(\.deviceId) == [deviceId])
            // Exactly one id reaches the device: the failed attempt left nothing half-sent.
            let ids = try await collect(2, from: device.notifications(deviceId: deviceId), timeout: .seconds(2))
            #expect(ids == [sent.notificationId])
            await device.shutdown()
            await backend.shutdown()
        }
    }
}
