import Foundation
import Logging
import Metrics
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

/// A notification store wired as in production (real dispatcher, SQLite, token verification) but driven in-process,
/// with a hand-moved clock and a fake auth serving the test signer's key.
struct StoreHarness {
    let components: StoreComponents
    let clock: TestClock
    let auth: FakeAuth
    let signer: TestSigner
    let transport: InProcessTransport
    let client: RPCClient

    /// - Parameters:
    ///   - configuration: defaults to an in-memory database with the documented limits.
    ///   - loadKeys: fetch auth's keys before returning, as the background loader would shortly after start.
    ///   - authIsUp: whether the fake auth answers at first.
    init(
        configuration: StoreConfiguration = StoreConfiguration(),
        loadKeys: Bool = true,
        authIsUp: Bool = true,
        signer: TestSigner? = nil,
        clock: TestClock = TestClock(),
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) async throws {
        let signer: TestSigner = if let signer { signer } else { try await TestSigner() }
        let auth = FakeAuth(signer: signer, for: .store, isUp: authIsUp) { Issue.record(Comment(rawValue: $0)) }
        let components = try StoreComponents.make(
            configuration: configuration,
            auth: auth.client,
            logger: .quiet,
            now: { clock.now },
            metrics: metrics
        )
        if loadKeys {
            let loaded = await components.verifier.refresh()
            try #require(loaded)
        }
        let dispatcher = components.dispatcher
        let transport = InProcessTransport(
            dispatcher: { dispatcher },
            context: { RPCRequestContext(bearerToken: $0, logger: .quiet) }
        )
        self.components = components
        self.clock = clock
        self.auth = auth
        self.signer = signer
        self.transport = transport
        self.client = RPCClient(transport: transport, peerName: "notification-store")
    }

    /// Stores a notification as push-dispatch would.
    @discardableResult
    func put(to recipientID: String, payload: String = "secret", ttlSeconds: Int? = nil) async throws
        -> Store.Put.Result
    {
        try await client.call(
            Store.Put.self,
            .init(recipientId: recipientID, payload: payload, ttlSeconds: ttlSeconds),
            token: try await signer.writerToken()
        )
    }

    /// Fetches a notification as `userID`'s device would.
    func get(_ notificationID: String, as userID: String) async throws -> Store.StoredNotification {
        try await client.call(
            Store.Get.self, .init(notificationId: notificationID), token: try await signer.userToken(userID))
    }

    /// Lists `userID`'s notifications.
    func list(as userID: String, unreadOnly: Bool? = nil, limit: Int? = nil, cursor: String? = nil) async throws
        -> Store.List.Result
    {
        try await client.call(
            Store.List.self,
            .init(unreadOnly: unreadOnly, limit: limit, cursor: cursor),
            token: try await signer.userToken(userID)
        )
    }

    /// Every page of `userID`'s listing, following `nextCursor` (bounded so a cursor bug cannot loop forever).
    func allPages(as userID: String, unreadOnly: Bool? = nil, limit: Int) async throws -> [Store.List.Result] {
        var pages: [Store.List.Result] = []
        var cursor: String?
        for _ in 0..<100 {
            let page = try await list(as: userID, unreadOnly: unreadOnly, limit: limit, cursor: cursor)
            pages.append(page)
            guard let next = page.nextCursor else { return pages }
            cursor = next
        }
        Issue.record("pagination did not end after 100 pages")
        return pages
    }

    /// The raw response body of one call with request id 1, for byte-for-byte comparisons.
    func rawResponse(method: String, params: JSONValue, token: String?) async throws -> Data {
        let request = RPCRequestEnvelope(method: method, params: params, id: .int(1))
        let body = try RPCCodec.makeEncoder().encode(request)
        return try #require(try await transport.post(body, bearerToken: token))
    }

    /// How many rows the notification table holds, expired or not.
    func storedRowCount() async throws -> Int {
        try await components.sqlite!.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notification") ?? 0
        }
    }
}

/// The `RPCError` `body` throws; records an issue when it succeeds or throws something else.
func rpcError<T>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> RPCError? {
    do {
        _ = try await body()
        Issue.record("expected an RPCError, but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as RPCError {
        return error
    } catch {
        Issue.record("expected an RPCError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension RPCError {
    /// The field a `-32602` names in its data.
    var field: String? {
        if case .string(let field)? = data?["field"] { return field }
        return nil
    }
}
