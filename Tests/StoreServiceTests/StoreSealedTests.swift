import Foundation
import GRDB
import SealedPush
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

@Suite("store: sealed copies")
struct StoreSealedTests {
    @Test("sealed only: each device gets its own copy, and no server-readable copy exists")
    func sealedOnly() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let laptop = TestDevice()
        let put = try await harness.put(to: "alice", payload: "PIN 4711", sealedTo: [phone, laptop])
        let forPhone = try await harness.get(put.notificationId, as: "alice", device: phone.id)
        #expect(forPhone.payload == nil)
        #expect(try phone.open(forPhone) == "PIN 4711")
        #expect(
            try laptop.open(try await harness.get(put.notificationId, as: "alice", device: laptop.id)) == "PIN 4711")
        // One device's copy does not open with the other's key.
        #expect(throws: (any Error).self) { try laptop.open(forPhone) }
        // Without a device, there is nothing the server could hand out.
        let error = await rpcError { try await harness.get(put.notificationId, as: "alice") }
        #expect(error?.code == -32602 && error?.field == "deviceId")
        let row = try harness.components.sqlite!.read { db in
            try Row.fetchOne(db, sql: "SELECT payload, payload_scheme FROM notification")
        }
        #expect((row?["payload"] as Data?)?.isEmpty == true)
        #expect(row?["payload_scheme"] == "none")
    }

    @Test("with an unsealed device too, the readable copy stays for it and sealed devices still get theirs")
    func mixed() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let put = try await harness.put(to: "alice", payload: "mixed", sealedTo: [phone], sealedOnly: false)
        #expect(try await harness.get(put.notificationId, as: "alice").payload == "mixed")
        let unsealed = UUID().uuidString.lowercased()
        #expect(try await harness.get(put.notificationId, as: "alice", device: unsealed).payload == "mixed")
        #expect(try phone.open(try await harness.get(put.notificationId, as: "alice", device: phone.id)) == "mixed")
    }

    @Test("store.put refuses malformed recipientKeys, naming the entry")
    func badKeys() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let writer = try await harness.signer.writerToken()
        func put(_ keys: [Store.RecipientKey]) async -> RPCError? {
            await rpcError {
                try await harness.client.call(
                    Store.Put.self, .init(recipientId: "alice", payload: "x", recipientKeys: keys), token: writer)
            }
        }
        var padded = phone.recipientKey
        padded.publicKey += "="
        #expect(await put([padded])?.field == "recipientKeys[0].publicKey")
        var short = TestDevice().recipientKey
        short.publicKey = String(short.publicKey.dropLast(4))
        #expect(await put([phone.recipientKey, short])?.field == "recipientKeys[1].publicKey")
        #expect(await put([phone.recipientKey, phone.recipientKey])?.field == "recipientKeys[1].deviceId")
        var notUUID = phone.recipientKey
        notUUID.deviceId = "../../etc/passwd"
        #expect(await put([notUUID])?.field == "recipientKeys[0].deviceId")
        let many = (0...NotificationStore.maxRecipientKeys).map { _ in TestDevice().recipientKey }
        #expect(await put(many)?.field == "recipientKeys")
        #expect(try await harness.storedRowCount() == 0)
    }

    @Test("store.receipts lists each device's first fetch, for store:write callers only")
    func receipts() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let put = try await harness.put(to: "alice", sealedTo: [phone], sealedOnly: false)
        let first = harness.clock.now
        _ = try await harness.get(put.notificationId, as: "alice", device: phone.id)
        harness.clock.advance(by: 5)
        _ = try await harness.get(put.notificationId, as: "alice", device: phone.id)
        _ = try await harness.get(put.notificationId, as: "alice")  // no device: not attributable
        let receipts = try await harness.client.call(
            Store.Receipts.self, .init(notificationId: put.notificationId),
            token: try await harness.signer.writerToken())
        #expect(receipts.receipts == [Store.Receipt(deviceId: phone.id, fetchedAt: first)])
        let error = await rpcError {
            try await harness.client.call(
                Store.Receipts.self, .init(notificationId: put.notificationId),
                token: try await harness.signer.userToken("alice"))
        }
        #expect(error?.code == -32003)
    }

    @Test(
        "store.receiptsSince lists every receipt at or after a time, oldest first, paged; store:write only; bad bounds -32602"
    )
    func receiptsSince() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let tablet = TestDevice()
        let first = try await harness.put(to: "alice", sealedTo: [phone, tablet], sealedOnly: false)
        let start = harness.clock.now
        _ = try await harness.get(first.notificationId, as: "alice", device: phone.id)
        harness.clock.advance(by: 2)
        _ = try await harness.get(first.notificationId, as: "alice", device: tablet.id)
        _ = try await harness.get(first.notificationId, as: "alice", device: phone.id)  // a second fetch: no receipt
        let writer = try await harness.signer.writerToken()
        func since(_ after: Date, limit: Int? = nil) async throws -> Store.ReceiptsSince.Result {
            try await harness.client.call(
                Store.ReceiptsSince.self, .init(after: after.millisecondsSince1970, limit: limit), token: writer)
        }
        let all = try await since(start)
        #expect(all.receipts.map(\.deviceId) == [phone.id, tablet.id])
        #expect(all.receipts.allSatisfy { $0.notificationId == first.notificationId })
        #expect(all.next == start.addingTimeInterval(2).millisecondsSince1970)
        let page = try await since(start, limit: 1)
        #expect(page.receipts.map(\.deviceId) == [phone.id])
        #expect(try await since(Date(millisecondsSince1970: page.next + 1)).receipts.map(\.deviceId) == [tablet.id])
        let later = try await since(start.addingTimeInterval(3))
        #expect(later.receipts.isEmpty)
        #expect(later.next == start.addingTimeInterval(3).millisecondsSince1970)

        let user = await rpcError {
            _ = try await harness.client.call(
                Store.ReceiptsSince.self, .init(after: 0), token: try await harness.signer.userToken("alice"))
        }
        #expect(user?.code == -32003)
        for (params, field) in [
            (Store.ReceiptsSince.Params(after: -1), "after"), (.init(after: 0, limit: 0), "limit"),
            (.init(after: 0, limit: 1_001), "limit"),
        ] {
            let error = await rpcError {
                _ = try await harness.client.call(Store.ReceiptsSince.self, params, token: writer)
            }
            #expect(error?.code == -32602)
            #expect(error?.message.contains(field) == true)
        }
    }
}
