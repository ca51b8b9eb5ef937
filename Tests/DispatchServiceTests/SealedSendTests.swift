import Crypto
import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("push-dispatch: sealed devices")
struct SealedSendTests {
    static func publicKey() -> String {
        P256.KeyAgreement.PrivateKey().publicKey.x963Representation.base64URLEncodedString()
    }

    func register(_ harness: DispatchHarness, user: String, publicKey: String?, token: String? = nil) async throws
        -> String
    {
        try await harness.client.call(
            Devices.Register.self, .init(platform: .direct, token: token, publicKey: publicKey),
            token: try await harness.signer.userToken(user)
        ).deviceId
    }

    @Test("devices.register records the key; devices.list says which devices are sealed; re-registering changes it")
    func registerAndList() async throws {
        let harness = try await DispatchHarness()
        let sealed = try await register(harness, user: "alice", publicKey: Self.publicKey(), token: "tok-1")
        let plain = try await register(harness, user: "alice", publicKey: nil)
        let list = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        #expect(list.devices.map(\.deviceId) == [sealed, plain])
        #expect(list.devices.map(\.sealed) == [true, false])
        // The same token again, without a key: the device is now unsealed.
        #expect(try await register(harness, user: "alice", publicKey: nil, token: "tok-1") == sealed)
        let after = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        #expect(after.devices.map(\.sealed) == [false, false])
    }

    @Test(
        "a public key that is not base64url of a 65-byte 0x04 P-256 point is -32602 naming publicKey",
        arguments: [
            "", "not base64!", String(repeating: "A", count: 87), Self.publicKey() + "=",
            P256.KeyAgreement.PrivateKey().publicKey.compressedRepresentation.base64URLEncodedString(),
            Data([0x04] + [UInt8](repeating: 7, count: 64)).base64URLEncodedString(),
            String(repeating: "A", count: 5000),
        ])
    func badKey(_ key: String) async throws {
        let harness = try await DispatchHarness()
        let error = await expectRPCError { _ = try await register(harness, user: "alice", publicKey: key) }
        #expect(error?.code == -32602)
        #expect(error?.message.contains("'publicKey'") == true)
        #expect(try await harness.count("device") == 0)
    }

    @Test("push.send passes the sealed devices' keys; with every device sealed no readable copy is asked for")
    func keysReachTheStore() async throws {
        let harness = try await DispatchHarness()
        let key = Self.publicKey()
        let phone = try await register(harness, user: "alice", publicKey: key)
        _ = try await harness.send(to: "alice")
        let allSealed = try #require(harness.store.storedCalls.last?.params)
        #expect(allSealed.recipientKeys == [Store.RecipientKey(deviceId: phone, publicKey: key)])
        #expect(allSealed.sealedOnly == true)

        let laptop = try await register(harness, user: "alice", publicKey: nil)
        let mixed = try await harness.send(to: "alice")
        let call = try #require(harness.store.storedCalls.last?.params)
        #expect(call.recipientKeys == [Store.RecipientKey(deviceId: phone, publicKey: key)])
        #expect(call.sealedOnly == nil)
        #expect(Set(mixed.deliveries.map(\.deviceId)) == [phone, laptop])
    }

    @Test("sealedOnly targets only sealed devices; readOnce reaches the store")
    func sealedOnlyTargets() async throws {
        let harness = try await DispatchHarness()
        let phone = try await register(harness, user: "alice", publicKey: Self.publicKey())
        let laptop = try await register(harness, user: "alice", publicKey: nil)
        let result = try await harness.client.call(
            Push.Send.self, .init(recipientId: "alice", payload: "x", sealedOnly: true, readOnce: true),
            token: try await harness.signer.senderToken())
        #expect(result.deliveries.map(\.deviceId) == [phone])
        #expect(try await harness.pendingIDs(laptop) == [])
        let call = try #require(harness.store.storedCalls.last?.params)
        #expect(call.sealedOnly == true && call.readOnce == true)
        #expect(call.recipientKeys?.map(\.deviceId) == [phone])
    }

    @Test("push.status shows each device's first fetch from the store's receipts")
    func fetchedAt() async throws {
        let harness = try await DispatchHarness()
        let phone = try await register(harness, user: "alice", publicKey: Self.publicKey())
        let laptop = try await register(harness, user: "alice", publicKey: nil)
        let sent = try await harness.send(to: "alice")
        let fetched = Date(timeIntervalSince1970: 1_800_000_123)
        harness.store.setReceipts([Store.Receipt(deviceId: phone, fetchedAt: fetched)], for: sent.notificationId)
        let status = try await harness.status(sent.notificationId)
        #expect(status.deliveries.first { $0.deviceId == phone }?.fetchedAt == fetched)
        #expect(status.deliveries.first { $0.deviceId == laptop }?.fetchedAt == nil)
        // The store away: delivery states still answer, without receipts.
        harness.store.setMode(.unreachable)
        #expect(try await harness.status(sent.notificationId).deliveries.allSatisfy { $0.fetchedAt == nil })
    }
}
