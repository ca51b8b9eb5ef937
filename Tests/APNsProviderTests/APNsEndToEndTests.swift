import APNsMock
import Foundation
import Logging
import SecurePushClient
import SecurePushStack
import SharedModels
import TestSupport
import Testing
import Tracing

@Suite("push.send through the durable worker to the APNs mock")
struct APNsEndToEndTests {
    @Test("a send is retried past two 503s, a token unregistered later is deactivated, and only the id reaches APNs")
    func sendThroughTheWholeStack() async throws {
        let state = APNsMockState()
        try await withAPNsMock(state: state) { mock in
            try await withSignedInDevice(against: mock, username: "iphone-owner") { device, userId, backend in
                let flaky = deviceToken(1)
                let gone = deviceToken(2)
                let flakyID = try await device.register(device: .init(platform: .apns, token: flaky))
                let goneID = try await device.register(device: .init(platform: .apns, token: gone))
                state.script(flaky, [.serviceUnavailable, .serviceUnavailable])
                state.script(gone, [.unregistered(since: Date().addingTimeInterval(60))])

                let secret = "IBAN DE89 3704 0044 0532 0130 00 — transfer approved"
                let sent = try await backend.send(.init(recipientId: userId, payload: secret))
                #expect(Set(sent.deliveries.map(\.status)) == [.queued])

                var status = try await backend.status(notificationId: sent.notificationId)
                for _ in 0..<200 where !Self.settled(status) {
                    try await Task.sleep(for: .milliseconds(50))
                    status = try await backend.status(notificationId: sent.notificationId)
                }
                let byDevice = Dictionary(uniqueKeysWithValues: status.deliveries.map { ($0.deviceId, $0) })
                #expect(byDevice[flakyID]?.status == .sent)
                #expect(byDevice[flakyID]?.attempts == 3)
                #expect(byDevice[goneID]?.status == .deactivated)
                #expect(try await device.devices().first { $0.deviceId == goneID }?.active == false)

                let requests = state.requests
                #expect(requests.count == 4)
                for request in requests {
                    #expect(request.bodyText.contains(sent.notificationId))
                    #expect(!request.bodyText.contains("IBAN"), "the payload must never reach APNs")
                }
                // The payload is in the store, for the recipient.
                #expect(try await device.fetch(sent.notificationId).payload == secret)
            }
        }
    }

    @Test("each APNs attempt, a retry included, runs from the database in the send's trace, linked to the send")
    func attemptsJoinTheSendsTrace() async throws {
        let state = APNsMockState()
        let tracer = RecordingTracer()
        try await withAPNsMock(state: state) { mock in
            try await withSignedInDevice(against: mock, username: "traced-owner", tracer: tracer) {
                device, userId, backend in
                let token = deviceToken(7)
                _ = try await device.register(device: .init(platform: .apns, token: token))
                state.script(token, [.serviceUnavailable])
                let sent = try await backend.send(.init(recipientId: userId, payload: "traced"))

                let succeeded = await tracer.spans(
                    where: { $0.name == "push.deliver" && Self.isSent($0) }, timeout: .seconds(20))
                #expect(succeeded.count == 1, "the second attempt succeeded")
                let send = try #require(tracer.finishedSpans.first { $0.name == "push.send" && $0.kind == .server })
                let attempts = tracer.finishedSpans.filter { $0.name == "push.deliver" }
                #expect(attempts.count == 2)
                for attempt in attempts {
                    #expect(attempt.kind == .client)
                    #expect(attempt.traceID == send.traceID, "push.deliver is in another trace")
                    #expect(attempt.parentSpanID == send.spanID)
                    #expect(attempt.links.contains { $0.traceID == send.traceID && $0.spanID == send.spanID })
                }
                // APNs receives the send's trace context with the id, so the device's fetch can join it.
                let sendContext = try #require(TraceParent(traceID: send.traceID, spanID: send.spanID))
                #expect(state.requests.count == 2)
                #expect(state.requests.allSatisfy { $0.bodyText.contains(sendContext.description) })
                #expect(state.requests.allSatisfy { $0.bodyText.contains(sent.notificationId) })
            }
        }
    }

    private static func isSent(_ span: RecordingTracer.FinishedSpan) -> Bool {
        span.attributes["securepush.delivery.result"]?.toSpanAttribute() == "sent"
    }

    private static func settled(_ status: Push.Status.Result) -> Bool {
        status.deliveries.allSatisfy { $0.status == .sent || $0.status == .deactivated || $0.status == .failed }
    }
}

/// Runs `body` with one device client signed in as a new user `username` (its user id), and the backend client, against
/// the whole stack delivering to `mock`.
func withSignedInDevice(
    against mock: APNsMock, username: String, tracer: (any Tracer)? = nil,
    _ body: (SecurePushDevice, String, SecurePushBackend) async throws -> Void
) async throws {
    try await withAPNsStack(against: mock, devices: 1, tracer: tracer) { devices, backend in
        let device = devices[0]
        let userId = try await device.createAccount(username: username, password: "long enough password")
        try await device.signIn(username: username, password: "long enough password")
        try await body(device, userId, backend)
    }
}

/// Runs `body` with `devices` device clients (not signed in) and the backend client, against the whole stack
/// delivering to `mock`; stops every client and the stack afterwards, whether `body` threw or not.
func withAPNsStack(
    against mock: APNsMock, devices count: Int, tracer: (any Tracer)? = nil,
    _ body: ([SecurePushDevice], SecurePushBackend) async throws -> Void
) async throws {
    let directory = TemporaryDirectory.processRootURL.appendingPathComponent("apns-e2e-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let backendSecret = "backend-secret-\(UUID().uuidString)"
    let logger = Logger(label: "apns-e2e") { _ in SwiftLogNoOpLogHandler() }
    let stack = try await startStack(
        against: mock, in: directory, backendSecret: backendSecret, logger: logger, tracer: tracer)
    let endpoints = SecurePushEndpoints(auth: stack.authURL, store: stack.storeURL, dispatch: stack.dispatchURL)
    var devices: [SecurePushDevice] = []
    let backend: SecurePushBackend
    do {
        for _ in 0..<count { devices.append(try SecurePushDevice(endpoints: endpoints, logger: logger)) }
        backend = try SecurePushBackend(
            authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "backend", clientSecret: backendSecret,
            logger: logger)
    } catch {
        for device in devices { await device.shutdown() }
        await stack.stop()
        throw error
    }
    do {
        try await body(devices, backend)
    } catch {
        for device in devices { await device.shutdown() }
        await backend.shutdown()
        await stack.stop()
        throw error
    }
    for device in devices { await device.shutdown() }
    await backend.shutdown()
    await stack.stop()
}

/// The whole stack in one process, delivering to the APNs mock (backoff 1 s), with the backend client `backend`;
/// every service traces with `tracer` when one is given.
func startStack(
    against mock: APNsMock, in directory: URL, backendSecret: String, logger: Logger, tracer: (any Tracer)? = nil,
    extra: [String: String] = [:]
) async throws -> LocalStack {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let keyFile = directory.appendingPathComponent("AuthKey.p8").path
    try mock.key.p8.write(toFile: keyFile, atomically: true, encoding: .utf8)
    let environment = [
        "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_HOST": "127.0.0.1",
        "SECUREPUSH_AUTH_PORT": "0", "SECUREPUSH_STORE_PORT": "0", "SECUREPUSH_DISPATCH_PORT": "0",
        "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": backendSecret,
        "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
        "SECUREPUSH_DISPATCH_CLIENT_SECRET": "dispatch-secret",
        "SECUREPUSH_BCRYPT_COST": "10",
        "SECUREPUSH_APNS_KEY_FILE": keyFile, "SECUREPUSH_APNS_KEY_ID": mock.key.keyID,
        "SECUREPUSH_APNS_TEAM_ID": mock.key.teamID, "SECUREPUSH_APNS_TOPIC": mock.topic,
        "SECUREPUSH_APNS_URL": mock.baseURL, "SECUREPUSH_APNS_CA_FILE": mock.certificates.caCertificatePath,
        "SECUREPUSH_DELIVERY_BACKOFF_BASE": "1", "SECUREPUSH_DELIVERY_BACKOFF_MAX": "1",
    ]
    return try await LocalStack.start(
        environment: environment.merging(extra) { _, new in new }, logger: logger, tracer: tracer)
}
