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
}
