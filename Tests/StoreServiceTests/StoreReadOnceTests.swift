import Foundation
import GRDB
import SealedPush
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

@Suite("store: read-once notifications")
struct StoreReadOnceTests {
    @Test("the first fetch erases every copy: then -32010 with readAt for the recipient, -32004 for anyone else")
    func readOnce() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let laptop = TestDevice()
        let put = try await harness.put(
            to: "alice", payload: "one look", sealedTo: [phone, laptop], sealedOnly: false, readOnce: true)
        let fetchedAt = harness.clock.now
        let first = try await harness.get(
            put.notificationId, device: phone.id, proof: try phone.proof(for: put.notificationId, at: fetchedAt))
        #expect(try phone.open(first) == "one look")
        #expect(first.readAt == fetchedAt)
        harness.clock.advance(by: 3)

        let again = await rpcError { try await harness.get(put.notificationId, as: "alice", device: laptop.id) }
        #expect(again?.code == -32010)
        #expect(again?.data?["readAt"] == .string(fetchedAt.formatted(.iso8601)))
        #expect(await rpcError { try await harness.get(put.notificationId, as: "alice") }?.code == -32010)
        let byProof = await rpcError {
            try await harness.get(
                put.notificationId, device: laptop.id,
                proof: try laptop.proof(for: put.notificationId, at: harness.clock.now))
        }
        #expect(byProof?.code == -32010)
        let stranger = await rpcError { try await harness.get(put.notificationId, as: "mallory") }
        #expect(stranger == RPCError.notFound("notification"))

        let listed = try await harness.list(as: "alice").items
        #expect(listed.map(\.notificationId) == [put.notificationId])
        #expect(listed.first?.readAt == fetchedAt && listed.first?.gone == true)

        // Nothing of it is left in the database: no payload, no ciphertext.
        let (payloadBytes, ciphertexts) = try await harness.components.sqlite!.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT length(payload) FROM notification") ?? -1,
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM sealed_copy WHERE enc IS NOT NULL OR ciphertext IS NOT NULL")
                    ?? -1
            )
        }
        #expect(payloadBytes == 0 && ciphertexts == 0)
    }

    @Test(
        "a token alone does not consume a read-once notification sealed to the devices: -32602 naming the proof header, nothing read; the device's proof (with or without the token) then opens it"
    )
    func readOnceNeedsTheKey() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let put = try await harness.put(
            to: "alice", payload: "one look", sealedTo: [phone], sealedOnly: true, readOnce: true)
        // The stolen token, naming the device: nothing is consumed.
        let refused = await rpcError { try await harness.get(put.notificationId, as: "alice", device: phone.id) }
        #expect(refused?.code == RPCErrorCode.invalidParams)
        #expect(refused?.data?["field"] == .string("SecurePush-Device-Proof"))
        #expect(refused?.message.contains("only a device's proof may consume it") == true)
        let listed = try await harness.list(as: "alice").items.first
        #expect(listed?.readAt == nil && listed?.gone == nil)
        // A token beside a proof must be the recipient's: another user's token gets what a missing one gets.
        let mismatched = await rpcError {
            try await harness.get(
                put.notificationId, as: "mallory", device: phone.id,
                proof: try phone.proof(for: put.notificationId, at: harness.clock.now))
        }
        #expect(mismatched == RPCError.notFound("notification"))
        // The device itself, token and proof.
        let opened = try await harness.get(
            put.notificationId, as: "alice", device: phone.id,
            proof: try phone.proof(for: put.notificationId, at: harness.clock.now))
        #expect(try phone.open(opened) == "one look")
        let again = await rpcError { try await harness.get(put.notificationId, as: "alice", device: phone.id) }
        #expect(again?.code == -32010)
    }

    @Test("a notification that is not read-once can be fetched again")
    func notReadOnce() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let put = try await harness.put(to: "alice", sealedTo: [phone])
        for _ in 0..<3 { _ = try await harness.get(put.notificationId, as: "alice", device: phone.id) }
        #expect(try await harness.list(as: "alice").items.first?.gone == nil)
    }

    @Test("of two concurrent fetches exactly one gets the payload", arguments: TestPostgres.backends)
    func concurrentFetches(backend: TestDatabaseBackend) async throws {
        try await NotificationRepositoryTests().withRepository(backend) { repository in
            for round in 0..<5 {
                let id = UUID().uuidString.lowercased()
                let now = NotificationRepositoryTests.start
                try await repository.insert(
                    NotificationRecord(
                        metadata: .init(
                            id: id, recipientID: "ada", createdAt: now, expiresAt: now.addingTimeInterval(3600),
                            readOnce: true),
                        payload: "round \(round)"))
                let outcomes = try await withThrowingTaskGroup(of: FetchOutcome.self) { group in
                    for device in ["a", "b"] {
                        group.addTask {
                            try await repository.fetch(
                                id: id, recipientID: "ada", deviceID: device, proven: false, now: now)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let delivered = outcomes.filter { if case .payload = $0 { true } else { false } }
                let gone = outcomes.filter { if case .gone = $0 { true } else { false } }
                #expect(delivered.count == 1 && gone.count == 1, "round \(round): \(outcomes)")
                #expect(try await repository.find(id: id, recipientID: "ada", now: now)?.payload == nil)
            }
        }
    }
}
