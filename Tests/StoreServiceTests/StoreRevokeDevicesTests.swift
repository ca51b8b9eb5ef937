import Foundation
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

/// `store.revokeDevices` (issue 24): a device push-dispatch revoked opens nothing sealed to it before, on SQLite and
/// across PostgreSQL replicas; what is sealed to it afterwards (a new key, a new owner) still opens.
@Suite("store.revokeDevices")
struct StoreRevokeDevicesTests {
    @Test("a revoked device's proof is -32001 'device revoked' and its copies are deleted; a later copy opens")
    func revokedDeviceOpensNothing() async throws {
        let harness = try await StoreHarness()
        let laptop = TestDevice()
        let phone = TestDevice()
        let before = try await harness.put(to: "alice", payload: "balance", sealedTo: [laptop, phone])
        let result = try await harness.revoke([laptop.id])
        #expect(result == .init(deviceIds: 1, sealedCopiesDeleted: 1))

        let refused = await rpcError {
            try await harness.get(
                before.notificationId, device: laptop.id,
                proof: try laptop.proof(for: before.notificationId, at: harness.clock.now))
        }
        #expect(refused?.code == RPCErrorCode.unauthenticated)
        #expect(refused?.message == "Unauthenticated: device revoked")
        // With the user's token beside the proof, or the token alone: nothing sealed to the laptop is left.
        let byToken = await rpcError { try await harness.get(before.notificationId, as: "alice", device: laptop.id) }
        #expect(byToken != nil)
        // The other device of the same user is untouched.
        let other = try await harness.get(
            before.notificationId, device: phone.id,
            proof: try phone.proof(for: before.notificationId, at: harness.clock.now))
        #expect(try phone.open(other) == "balance")

        // The same device id with a new key (re-registered): what is sealed from now on opens.
        harness.clock.advance(by: 1)
        let rekeyed = TestDevice(id: laptop.id)
        let after = try await harness.put(to: "alice", payload: "new", sealedTo: [rekeyed])
        let fetched = try await harness.get(
            after.notificationId, device: laptop.id,
            proof: try rekeyed.proof(for: after.notificationId, at: harness.clock.now))
        #expect(try rekeyed.open(fetched) == "new")
    }

    @Test("a copy a racing store.put inserted after the revocation's delete is refused on every path")
    func racingPut() async throws {
        let harness = try await StoreHarness()
        let laptop = TestDevice()
        harness.clock.advance(by: 10)
        _ = try await harness.revoke([laptop.id])
        // The put read the clock before the revocation and committed after it.
        harness.clock.advance(by: -1)
        let raced = try await harness.put(to: "alice", payload: "raced", sealedTo: [laptop], sealedOnly: false)
        harness.clock.advance(by: 1)
        let byProof = await rpcError {
            try await harness.get(
                raced.notificationId, device: laptop.id,
                proof: try laptop.proof(for: raced.notificationId, at: harness.clock.now))
        }
        #expect(byProof?.message == "Unauthenticated: device revoked")
        // The user's token with the laptop's id gets the server-readable copy, never the laptop's sealed one.
        let byToken = try await harness.get(raced.notificationId, as: "alice", device: laptop.id)
        #expect(byToken.sealed == nil)
        #expect(byToken.payload == "raced")
    }

    @Test("a retried call (same revocationId) deletes nothing sealed after the first; a new call does")
    func retriesAreIdempotent() async throws {
        let harness = try await StoreHarness()
        let device = TestDevice()
        _ = try await harness.put(to: "alice", sealedTo: [device])
        let revocation = UUID().uuidString.lowercased()
        #expect(try await harness.revoke([device.id], revocationID: revocation).sealedCopiesDeleted == 1)
        harness.clock.advance(by: 1)
        let later = try await harness.put(to: "alice", payload: "later", sealedTo: [device])
        #expect(try await harness.revoke([device.id], revocationID: revocation).sealedCopiesDeleted == 0)
        let fetched = try await harness.get(
            later.notificationId, device: device.id,
            proof: try device.proof(for: later.notificationId, at: harness.clock.now))
        #expect(try device.open(fetched) == "later")
        #expect(try await harness.revoke([device.id], revocationID: UUID().uuidString).sealedCopiesDeleted == 1)
    }

    @Test("bad input is -32602 naming the field; a user's token is -32003; another device's copies stay")
    func refusals() async throws {
        let harness = try await StoreHarness()
        let device = TestDevice()
        let put = try await harness.put(to: "alice", sealedTo: [device])
        let tooMany = (0...Store.RevokeDevices.maxDeviceIDs).map { _ in UUID().uuidString }
        let same = UUID().uuidString
        for (ids, revocation, field) in [
            ([], nil, "deviceIds"), (tooMany, nil, "deviceIds"), (["laptop"], nil, "deviceIds[0]"),
            ([same, same.uppercased()], nil, "deviceIds[1]"), ([device.id], "again", "revocationId"),
        ] as [([String], String?, String)] {
            let error = await rpcError { try await harness.revoke(ids, revocationID: revocation) }
            #expect(
                error?.code == RPCErrorCode.invalidParams && error?.field == field,
                "\(field): \(String(describing: error))")
        }
        let forbidden = await rpcError {
            try await harness.client.call(
                Store.RevokeDevices.self, .init(deviceIds: [device.id]),
                token: try await harness.signer.userToken("alice"))
        }
        #expect(forbidden?.code == RPCErrorCode.forbidden)
        // Nothing was revoked by any of them.
        let fetched = try await harness.get(
            put.notificationId, device: device.id,
            proof: try device.proof(for: put.notificationId, at: harness.clock.now))
        #expect(try device.open(fetched) == "secret")
    }

    @Test(
        "on PostgreSQL: a revocation on one store replica is seen by the other at once",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func replicas() async throws {
        let sealer = AESGCMPayloadSealer(ring: .generate())
        try await TestPostgres.withTwoReplicas(
            serviceName: "notification-store", migrations: StoreMigrations.all.postgres
        ) { first, second in
            let clock = TestClock()
            let stores = [first, second].map { pool in
                NotificationStore(
                    repository: SQLNotificationRepository(database: PostgresSQLDatabase(pool), sealer: sealer),
                    replayCache: SQLProofReplayCache(database: PostgresSQLDatabase(pool)), now: { clock.now },
                    logger: .quiet)
            }
            let device = TestDevice()
            let put = try await stores[0].put(
                recipientID: "alice", payload: "balance", ttlSeconds: nil, recipientKeys: [device.recipientKey],
                sealedOnly: true)
            #expect(try await stores[0].revokeDevices([device.id], revocationID: nil) == 1)
            await #expect(throws: StoreError.deviceRevoked) {
                try await stores[1].fetch(
                    id: put.id, deviceID: device.id, proof: try device.proof(for: put.id, at: clock.now),
                    logger: .quiet)
            }
        }
    }
}

extension StoreHarness {
    /// `store.revokeDevices` as push-dispatch calls it.
    func revoke(_ deviceIDs: [String], revocationID: String? = nil) async throws -> Store.RevokeDevices.Result {
        try await client.call(
            Store.RevokeDevices.self, .init(deviceIds: deviceIDs, revocationId: revocationID),
            token: try await signer.writerToken())
    }
}
