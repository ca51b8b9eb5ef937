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

/// Webhooks from two push-dispatch replicas sharing PostgreSQL, as separate processes: both look for events and both
/// send them, yet each event reaches the receiver once, signed, after its action.
@Suite(
    "Webhooks on PostgreSQL replicas",
    .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct WebhookReplicaTests {
    let logger = Logger(label: "webhook-replica-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("two replicas: every delivery.sent, notification.fetched and webhook.test arrives once, signed")
    func eachEventOnce() async throws {
        let url = try TestPostgres.isolatedURL(schemaPrefix: "webhooks")
        let secret = "webhook-backend-secret-\(UUID().uuidString)"
        let data = TemporaryDirectory.processRootURL.appendingPathComponent("webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        // Every replica reads the same apps key (the webhooks' secrets are sealed under it).
        let appsKey = data.appendingPathComponent("apps-keys").path
        try "k1 \(Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString())\n".write(
            toFile: appsKey, atomically: true, encoding: .utf8)
        let common = [
            "SECUREPUSH_DATABASE_URL": TestPostgres.url! + "&schema=\(url.schema!)",
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "bank-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": secret,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "webhook-dispatch-secret-0123456789abcdef",
            "SECUREPUSH_BCRYPT_COST": "10", "SECUREPUSH_DATA_DIR": data.path,
            "SECUREPUSH_APPS_KEY_FILE": appsKey, "SECUREPUSH_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
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
            try await run(auth: auth, store: store, dispatchA: dispatchA, dispatchB: dispatchB, secret: secret)
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
        secret: String
    ) async throws {
        let receiver = WebhookReceiver()
        try await receiver.serve { hookURL in
            let backend = try SecurePushBackend(
                authURL: auth.url, dispatchURL: dispatchA.url, clientID: "bank-backend", clientSecret: secret,
                logger: logger)
            defer { Task { await backend.shutdown() } }
            let webhook = try await backend.createWebhook(
                .init(url: hookURL, events: [.deliverySent, .notificationFetched]))

            let device = try SecurePushDevice(
                endpoints: .init(auth: auth.url, store: store.url, dispatch: dispatchB.url), logger: logger)
            defer { Task { await device.shutdown() } }
            let password = "password-\(UUID().uuidString)"
            let userID = try await device.createAccount(username: "hooked-user", password: password)
            try await device.signIn(username: "hooked-user", password: password)
            let deviceID = try await device.register(device: .init(platform: .direct, name: "phone"), key: DeviceKey())
            let listener = Task {
                for try await id in device.notifications(deviceId: deviceID) {
                    _ = try? await device.fetch(id)
                }
            }
            defer { listener.cancel() }
            try await Task.sleep(for: .milliseconds(500))

            var sent: [String] = []
            for index in 0..<12 {
                sent.append(
                    try await backend.send(Push.Send.Params(recipientId: userID, payload: "statement \(index)"))
                        .notificationId)
            }
            var tests: [String] = []
            for _ in 0..<4 { tests.append(try await backend.testWebhook(webhookId: webhook.webhookId)) }

            #expect(
                await eventually(timeout: .seconds(30)) {
                    let deliveries = await receiver.deliveries
                    return deliveries.filter { $0.type == "delivery.sent" }.count >= sent.count
                        && deliveries.filter { $0.type == "notification.fetched" }.count >= sent.count
                        && deliveries.filter { $0.type == "webhook.test" }.count >= tests.count
                })
            // Both replicas looked and sent all along: nothing arrives twice.
            try await Task.sleep(for: .seconds(2))
            let deliveries = await receiver.deliveries
            let ids = deliveries.map(\.id)
            #expect(Set(ids).count == ids.count, "an event arrived twice")
            for type in ["delivery.sent", "notification.fetched"] {
                let notified = deliveries.filter { $0.type == type }.compactMap { $0.data["notificationId"] as? String }
                #expect(Set(notified) == Set(sent), "\(type)")
            }
            #expect(Set(deliveries.filter { $0.type == "webhook.test" }.map(\.id)) == Set(tests))
            #expect(deliveries.allSatisfy { $0.isSigned(with: webhook.secret) })
            #expect(deliveries.allSatisfy { !String(decoding: $0.request.body, as: UTF8.self).contains("statement") })
        }
    }
}
