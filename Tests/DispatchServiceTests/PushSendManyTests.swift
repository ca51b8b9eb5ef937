import DispatchService
import Foundation
import JSONRPC
import SharedModels
import Testing

/// `push.send` with `recipientIds`: one notification per known recipient, the whole call under one idempotency key.
@Suite("push.send to many recipients")
struct PushSendManyTests {
    /// `push.send` with params written as JSON, for shapes the typed params cannot express.
    enum RawSend: RPCMethod {
        static let name = Push.Send.name
        typealias Params = JSONValue
        typealias Result = JSONValue
    }

    func sendToMany(
        _ harness: DispatchHarness, _ recipients: [String], payload: String = "statement ready", key: String? = nil,
        collapseId: String? = nil
    ) async throws -> Push.SendToMany.Result {
        try await harness.client.call(
            Push.SendToMany.self,
            .init(recipientIds: recipients, payload: payload, idempotencyKey: key, collapseId: collapseId),
            token: try await harness.signer.senderToken())
    }

    @Test(
        "one notification per known recipient, in the order first named, each once; unknown recipients are listed and get nothing"
    )
    func knownAndUnknown() async throws {
        let harness = try await DispatchHarness()
        harness.auth.knowOnly(["alice", "bob", "carol"])
        let alice = try await harness.registerDevice(user: "alice")
        let bobPhone = try await harness.registerDevice(user: "bob")
        let bobTablet = try await harness.registerDevice(user: "bob")

        let result = try await sendToMany(harness, ["alice", "bob", "alice", "nobody", "carol", "nobody"])

        #expect(result.notifications.map(\.recipientId) == ["alice", "bob", "carol"])
        #expect(result.unknownRecipientIds == ["nobody"])
        #expect(Set(result.notifications.map(\.notificationId)).count == 3)
        // One store.putMany for the three; nothing stored for the unknown one.
        #expect(harness.store.putManyCalls == [3])
        #expect(harness.store.storedCalls.map(\.params.recipientId).sorted() == ["alice", "bob", "carol"])
        let id = Dictionary(uniqueKeysWithValues: result.notifications.map { ($0.recipientId, $0.notificationId) })
        #expect(try await harness.pendingIDs(alice) == [id["alice"]!])
        #expect(try await harness.pendingIDs(bobPhone) == [id["bob"]!])
        #expect(try await harness.pendingIDs(bobTablet) == [id["bob"]!])
        // push.status per notification, as for a send to one.
        let status = try await harness.status(id["bob"]!)
        #expect(Set(status.deliveries.map(\.deviceId)) == [bobPhone, bobTablet])
        #expect(try await harness.status(id["carol"]!).deliveries.isEmpty)
    }

    @Test("only unknown recipients: nothing stored, nothing reserved, every one listed")
    func onlyUnknown() async throws {
        let harness = try await DispatchHarness()
        harness.auth.knowOnly([])
        let result = try await sendToMany(harness, ["x", "y"], key: "k")
        #expect(result == Push.SendToMany.Result(notifications: [], unknownRecipientIds: ["x", "y"]))
        #expect(harness.store.calls.isEmpty)
        #expect(try await harness.count("idempotency_key") == 0)
    }

    @Test("exactly one of recipientId and recipientIds; 1 to 10,000 distinct valid ids; each refusal names its field")
    func targetsAreChecked() async throws {
        let harness = try await DispatchHarness()
        let token = try await harness.signer.senderToken()
        func json(_ text: String) throws -> JSONValue {
            try RPCCodec.makeDecoder().decode(JSONValue.self, from: Data(text.utf8))
        }
        func field(_ params: String) async -> String? {
            let error = await expectRPCError {
                _ = try await harness.client.call(RawSend.self, try json(params), token: token)
            }
            #expect(error?.code == RPCErrorCode.invalidParams)
            guard case .object(let data)? = error?.data, case .string(let field)? = data["field"] else { return nil }
            return field
        }
        #expect(await field(#"{"recipientId": "alice", "recipientIds": ["bob"], "payload": "p"}"#) == "recipientIds")
        #expect(await field(#"{"payload": "p"}"#) == "recipientIds")
        #expect(await field(#"{"recipientIds": [], "payload": "p"}"#) == "recipientIds")
        #expect(await field(#"{"recipientIds": ["alice", ""], "payload": "p"}"#) == "recipientIds[1]")
        let tooMany = (0...Push.SendToMany.maxRecipients).map { "\"user-\($0)\"" }.joined(separator: ",")
        #expect(await field(#"{"recipientIds": [\#(tooMany)], "payload": "p"}"#) == "recipientIds")
        #expect(await field(#"{"recipientIds": ["alice"], "payload": "p", "priority": "urgent"}"#) == "priority")
        #expect(await field(#"{"recipientIds": ["alice"], "payload": "p", "collapseId": "has space"}"#) == "collapseId")
        let longCollapse = String(repeating: "a", count: 33)
        #expect(
            await field(#"{"recipientIds": ["alice"], "payload": "p", "collapseId": "\#(longCollapse)"}"#)
                == "collapseId")
        #expect(await field(#"{"recipientIds": ["alice"], "payload": ""}"#) == "payload")
        // 10,000 named twice each is 10,000 distinct: accepted.
        let twice = (0..<2 * Push.SendToMany.maxRecipients).map { "\"u\($0 % 10_000)\"" }.joined(separator: ",")
        guard
            case .object(let answer) = try await harness.client.call(
                RawSend.self, try json(#"{"recipientIds": [\#(twice)], "payload": "p"}"#), token: token),
            case .array(let notifications)? = answer["notifications"]
        else {
            Issue.record("no notifications")
            return
        }
        #expect(notifications.count == Push.SendToMany.maxRecipients)
        #expect(harness.store.putManyCalls == Array(repeating: Store.PutMany.maxItems, count: 10))
        #expect(harness.store.calls.count == Push.SendToMany.maxRecipients)
        #expect(harness.store.calls.allSatisfy { $0.params.payload == "p" })
    }

    @Test(
        "the idempotency key covers the whole call: a repeat answers the first result; other recipients or payload are -32602"
    )
    func idempotentCall() async throws {
        let harness = try await DispatchHarness()
        let first = try await sendToMany(harness, ["alice", "bob"], key: "statement-11")
        let again = try await sendToMany(harness, ["bob", "alice", "bob"], key: "statement-11")
        #expect(again == first, "the same set of recipients in another order is the same call")
        #expect(harness.store.calls.count == 2)
        let others = await expectRPCError { _ = try await sendToMany(harness, ["alice"], key: "statement-11") }
        #expect(others?.code == RPCErrorCode.invalidParams)
        #expect(others?.data == .object(["field": "idempotencyKey"]))
        #expect(others?.message.contains("reused with different parameters") == true)
        let payload = await expectRPCError {
            _ = try await sendToMany(harness, ["alice", "bob"], payload: "other", key: "statement-11")
        }
        #expect(payload?.data == .object(["field": "idempotencyKey"]))
        // The same key on a send to one is another call shape: refused too.
        let single = await expectRPCError { _ = try await harness.send(to: "alice", idempotencyKey: "statement-11") }
        #expect(single?.data == .object(["field": "idempotencyKey"]))
        #expect(harness.store.calls.count == 2)
    }

    @Test("a send to one with a reused key and another payload is -32602 naming idempotencyKey, not the first result")
    func singleSendReuse() async throws {
        let harness = try await DispatchHarness()
        let first = try await harness.send(to: "alice", payload: "one", idempotencyKey: "order-9")
        #expect(try await harness.send(to: "alice", payload: "one", idempotencyKey: "order-9") == first)
        let changed = await expectRPCError {
            _ = try await harness.send(to: "alice", payload: "two", idempotencyKey: "order-9")
        }
        #expect(changed?.code == RPCErrorCode.invalidParams)
        #expect(changed?.data == .object(["field": "idempotencyKey"]))
        let otherRecipient = await expectRPCError {
            _ = try await harness.send(to: "bob", payload: "one", idempotencyKey: "order-9")
        }
        #expect(otherRecipient?.data == .object(["field": "idempotencyKey"]))
        #expect(harness.store.calls.count == 1)
    }

    @Test(
        "a call that fails halfway keeps what it recorded; the retry with the same key ends with exactly one notification and one delivery per recipient"
    )
    func retryAfterFailureHalfway() async throws {
        let harness = try await DispatchHarness()
        let recipients = (0..<2_500).map { "user-\($0)" }
        var devices: [String: String] = [:]
        for recipient in recipients where recipient.hasSuffix("7") {
            devices[recipient] = try await harness.registerDevice(user: recipient)
        }
        harness.store.failPutMany(after: 1)
        let failed = await expectRPCError { _ = try await sendToMany(harness, recipients, key: "statement-12") }
        #expect(failed?.code == RPCErrorCode.unavailable)
        let recordedFirst = try await harness.count("push_send")
        // The first store.putMany's batch (about 512 KiB of items) was recorded before the failure.
        #expect(harness.store.putManyCalls.count == 1)
        #expect((900...1_000).contains(recordedFirst))
        #expect(recordedFirst == harness.store.putManyCalls.first)

        harness.store.failPutMany(after: nil)
        let result = try await sendToMany(harness, recipients, key: "statement-12")
        #expect(result.notifications.map(\.recipientId) == recipients)
        #expect(Set(result.notifications.map(\.notificationId)).count == recipients.count)
        #expect(harness.store.storedCalls.count == recipients.count, "the retry stored only what the first did not")
        #expect(try await harness.count("push_send") == recipients.count)
        #expect(try await harness.count("delivery") == devices.count)
        let id = Dictionary(uniqueKeysWithValues: result.notifications.map { ($0.recipientId, $0.notificationId) })
        for (recipient, device) in devices.sorted(by: { $0.key < $1.key }).prefix(20) {
            #expect(try await harness.pendingIDs(device) == [id[recipient]!])
        }
        #expect(try await sendToMany(harness, recipients, key: "statement-12") == result)
        #expect(harness.store.storedCalls.count == recipients.count)
    }
}
