import Foundation
import MetricsTestKit
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

/// The fetch path: `store.get` answered on the server's event loop, with no task, when it needs nothing that suspends.
@Suite("store.get answered without suspending")
struct StoreImmediateFetchTests {
    static func body(_ notificationID: String, deviceID: String? = nil) -> Data {
        var params: [String: JSONValue] = ["notificationId": .string(notificationID)]
        if let deviceID { params["deviceId"] = .string(deviceID) }
        let request = RPCRequestEnvelope(method: Store.Get.name, params: JSONValue.object(params), id: .int(1))
        return (try? RPCCodec.makeEncoder().encode(request)) ?? Data()
    }

    static func context(token: String?, proof: String? = nil) -> RPCRequestContext {
        RPCRequestContext(bearerToken: token, logger: .quiet, deviceProof: proof)
    }

    /// The immediate answer, or `nil` (recording an issue) when the call suspended.
    static func immediate(_ harness: StoreHarness, _ body: Data, token: String?) -> Data? {
        switch harness.components.dispatcher.handleImmediately(body: body, context: context(token: token)) {
        case .answered(let data): return data
        case .suspend:
            Issue.record("store.get suspended")
            return nil
        }
    }

    static func suspends(_ harness: StoreHarness, _ body: Data, token: String?, proof: String? = nil) -> Bool {
        if case .suspend = harness.components.dispatcher.handleImmediately(
            body: body, context: context(token: token, proof: proof))
        {
            return true
        }
        return false
    }

    @Test(
        "once its token verified, a device's fetch is answered at once, byte for byte as the async path answers it",
        arguments: [false, true])
    func answeredOnceTokenVerified(onFile: Bool) async throws {
        // In memory: GRDB's one connection; on a file: the event loops' own read-only connections.
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("immediate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = onFile ? directory.appendingPathComponent("store.sqlite").path : nil
        let harness = try await StoreHarness(configuration: StoreConfiguration(databasePath: path))
        let put = try await harness.put(to: "alice", payload: "your code is 482913 \"quoted\" \\ é\n\u{1}")
        let token = try await harness.signer.userToken("alice")
        let body = Self.body(put.notificationId)
        // A token never seen before needs its signature checked (and maybe auth's keys): that suspends.
        #expect(Self.suspends(harness, body, token: token))
        let viaAsync = try #require(try await harness.transport.post(body, bearerToken: token))
        let now = try #require(Self.immediate(harness, body, token: token))
        #expect(now == viaAsync)
        #expect(String(decoding: now, as: UTF8.self).contains(#"your code is 482913 \"quoted\" \\ é\n\u0001"#))
        // Both paths write the result directly (RPCDirectEncodable): the encoder's bytes are the reference.
        let response = try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<Store.StoredNotification>.self, from: now)
        let encoded = try RPCCodec.makeEncoder().encode(
            RPCResponse(id: .int(1), outcome: .result(try #require(response.result))))
        #expect(now == encoded)
    }

    @Test("refusals come at once and are the async path's: someone else's notification, a bad id, a service token")
    func refusalsAnsweredImmediately() async throws {
        let metrics = TestMetrics()
        let harness = try await StoreHarness(metrics: metrics)
        let put = try await harness.put(to: "alice")
        let mallory = try await harness.signer.userToken("mallory")
        let writer = try await harness.signer.writerToken()
        for token in [mallory, writer] {
            _ = try await harness.transport.post(Self.body(put.notificationId), bearerToken: token)
        }

        let foreign = try #require(Self.immediate(harness, Self.body(put.notificationId), token: mallory))
        let missing = try #require(Self.immediate(harness, Self.body(NotificationID.make()), token: mallory))
        #expect(foreign == missing)
        #expect(String(decoding: foreign, as: UTF8.self).contains("\(RPCErrorCode.notFound)"))
        let malformed = try #require(Self.immediate(harness, Self.body("' OR 1=1 --"), token: mallory))
        #expect(String(decoding: malformed, as: UTF8.self).contains("\(RPCErrorCode.invalidParams)"))
        let service = try #require(Self.immediate(harness, Self.body(put.notificationId), token: writer))
        #expect(String(decoding: service, as: UTF8.self).contains("\(RPCErrorCode.forbidden)"))

        // Counted once each, like the async path's: 2 warm-up refusals (not found, forbidden) plus these four.
        func fetches(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter("securepush_store_fetches_total", [("outcome", outcome)]).totalValue
        }
        #expect(try fetches("not_found") == 3)
        #expect(try fetches("forbidden") == 2)
        #expect(try fetches("invalid") == 1)
    }

    @Test(
        "read-once notifications, fetches as a device and device proofs (with or without a token) take the async path, which records them"
    )
    func whatStaysAsync() async throws {
        let harness = try await StoreHarness()
        let token = try await harness.signer.userToken("alice")
        let readOnce = try await harness.client.call(
            Store.Put.self, .init(recipientId: "alice", payload: "once", readOnce: true),
            token: try await harness.signer.writerToken())
        let plain = try await harness.put(to: "alice")
        _ = try await harness.transport.post(Self.body(plain.notificationId), bearerToken: token)
        #expect(!Self.suspends(harness, Self.body(plain.notificationId), token: token))

        // A read-once fetch erases the notification: a transaction, never a read on the event loop.
        #expect(Self.suspends(harness, Self.body(readOnce.notificationId), token: token))
        let first = try #require(
            try await harness.transport.post(Self.body(readOnce.notificationId), bearerToken: token))
        #expect(String(decoding: first, as: UTF8.self).contains("once"))
        #expect(Self.suspends(harness, Self.body(readOnce.notificationId), token: token))
        let second = try #require(
            try await harness.transport.post(Self.body(readOnce.notificationId), bearerToken: token))
        #expect(String(decoding: second, as: UTF8.self).contains("\(RPCErrorCode.gone)"))
        // A device's fetch records its receipt.
        let device = NotificationID.make()
        #expect(Self.suspends(harness, Self.body(plain.notificationId, deviceID: device), token: token))
        // No token, a device proof: verified (and remembered against replay) on the async path.
        #expect(Self.suspends(harness, Self.body(plain.notificationId, deviceID: device), token: nil, proof: "x.y.z"))
        // A verified token beside a proof: the proof must still be checked and spent, so the async path too.
        #expect(Self.suspends(harness, Self.body(plain.notificationId), token: token, proof: "x.y.z"))
    }
}
