import DispatchService
import Foundation
import GRDB
import Logging
import Metrics
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// push-dispatch wired as in production (real dispatcher, SQLite, token verification) but driven in-process,
/// with a hand-moved clock (or a `LiveClock` for delivery workers), a fake auth serving the test signer's key and a
/// fake store (or `storeClient`, e.g. a real client to a port nothing listens on). Remote providers are test doubles; their workers run only when a test runs `components.workers`.
struct DispatchHarness {
    let components: DispatchComponents
    let configuration: DispatchConfiguration
    let clock: any AdjustableClock
    let signer: TestSigner
    let auth: FakeAuth
    let store: FakeStore
    let client: RPCClient

    /// A configuration with the test client's credentials, an in-memory database (unless `databasePath` is given),
    /// a short keepalive and the given delivery settings.
    static func configuration(
        maxPayloadBytes: Int = 65_536, keepalive: Duration = .milliseconds(200), databasePath: String? = nil,
        delivery: DeliveryConfiguration = DeliveryConfiguration()
    ) -> DispatchConfiguration {
        DispatchConfiguration(
            databasePath: databasePath, dispatchClientID: FakeAuth.clientID,
            dispatchClientSecret: FakeAuth.clientSecret,
            maxPayloadBytes: maxPayloadBytes, keepaliveInterval: keepalive, delivery: delivery)
    }

    init(
        configuration: DispatchConfiguration = DispatchHarness.configuration(),
        providers: [any RemotePushProvider] = [],
        appProviders: AppCatalogLoader.ProviderFactory? = nil,
        clock: any AdjustableClock = TestClock(),
        storeClient: RPCClient? = nil,
        logger: Logger = .quiet,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) async throws {
        let signer = try await TestSigner()
        let auth = FakeAuth(signer: signer)
        let store = FakeStore(clock: clock)
        let components = try DispatchComponents.make(
            configuration: configuration, auth: auth.client, store: storeClient ?? store.client, providers: providers,
            appProviders: appProviders, logger: logger, now: { clock.now }, metrics: metrics)
        let loaded = await components.verifier.refresh()
        try #require(loaded)
        // The apps as the running service reads them at start (its loader is not run here).
        try await components.appLoader.refresh()
        let dispatcher = components.dispatcher
        self.components = components
        self.configuration = configuration
        self.clock = clock
        self.signer = signer
        self.auth = auth
        self.store = store
        self.client = RPCClient(
            transport: InProcessTransport(
                dispatcher: { dispatcher }, context: { RPCRequestContext(bearerToken: $0, logger: .quiet) }),
            peerName: "push-dispatch"
        )
    }

    /// Registers a device for `user` and returns its id.
    func registerDevice(
        user: String, platform: Platform = .direct, token: String? = nil, name: String? = nil
    ) async throws -> String {
        try await client.call(
            Devices.Register.self, .init(platform: platform, token: token, name: name),
            token: try await signer.userToken(user)
        ).deviceId
    }

    /// `push.send` as the app backend `sender`.
    func send(
        to recipient: String, payload: String = "the secret text", ttlSeconds: Int? = nil,
        idempotencyKey: String? = nil, as sender: String = "app-backend"
    ) async throws -> Push.Send.Result {
        try await client.call(
            Push.Send.self,
            .init(recipientId: recipient, payload: payload, ttlSeconds: ttlSeconds, idempotencyKey: idempotencyKey),
            token: try await signer.senderToken(sender)
        )
    }

    /// `push.status` as the app backend `sender`.
    func status(_ notificationID: String, as sender: String = "app-backend") async throws -> Push.Status.Result {
        try await client.call(
            Push.Status.self, .init(notificationId: notificationID), token: try await signer.senderToken(sender))
    }

    /// The notification ids pending for a device, in stream order.
    func pendingIDs(_ deviceID: String) async throws -> [String] {
        try await components.devices.pendingJobs(deviceID: deviceID).map(\.notificationID)
    }

    /// How many rows a table holds (to prove nothing was recorded).
    func count(_ table: String) async throws -> Int {
        try await components.sqlite!.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
    }
}

/// Runs `body` expecting a JSON-RPC error and returns it (fails the test when none or another error is thrown).
func expectRPCError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async
    -> RPCError?
{
    do {
        try await body()
        Issue.record("expected an RPCError, but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as RPCError {
        return error
    } catch {
        Issue.record("expected an RPCError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension FakeAuth {
    /// A fake auth for push-dispatch; a call it does not serve fails the test.
    convenience init(signer: TestSigner) {
        self.init(signer: signer, for: .dispatch) { Issue.record(Comment(rawValue: $0)) }
    }
}
