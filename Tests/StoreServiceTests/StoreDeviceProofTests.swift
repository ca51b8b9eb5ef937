import Crypto
import Foundation
import SealedPush
import SharedModels
import StoreService
import TestSupport
import Testing

@Suite("store.get with a SecurePush-Device-Proof and no token")
struct StoreDeviceProofTests {
    @Test("a sealed device fetches and opens its copy with nothing but its key")
    func fetchWithProof() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let put = try await harness.put(to: "alice", payload: "wire 1 200 € to …", sealedTo: [phone])
        let fetched = try await harness.get(
            put.notificationId, device: phone.id, proof: try phone.proof(for: put.notificationId, at: harness.clock.now)
        )
        #expect(try phone.open(fetched) == "wire 1 200 € to …")
    }

    @Test(
        "one device past SECUREPUSH_PROOFS_PER_DEVICE gets -32029 {quota: proofsPerDevice}; another device's proofs are still accepted"
    )
    func proofsPerDevice() async throws {
        var configuration = StoreConfiguration()
        configuration.proofsPerDevice = 3
        let harness = try await StoreHarness(configuration: configuration)
        let phone = TestDevice()
        let laptop = TestDevice()
        let put = try await harness.put(to: "alice", payload: "balance", sealedTo: [phone, laptop])
        for _ in 0..<3 {
            _ = try await harness.get(
                put.notificationId, device: phone.id,
                proof: try phone.proof(for: put.notificationId, at: harness.clock.now))
        }
        let refused = await rpcError {
            try await harness.get(
                put.notificationId, device: phone.id,
                proof: try phone.proof(for: put.notificationId, at: harness.clock.now))
        }
        #expect(refused?.code == RPCErrorCode.rateLimited)
        #expect(refused?.data?["quota"] == .string("proofsPerDevice"))
        #expect(refused?.data?["limit"] == .int(3))
        // The quota window is 2 minutes from each acceptance (a proof itself is valid for 60 s either way).
        #expect(refused?.data?["retryAfterSeconds"] == .int(120))
        let other = try await harness.get(
            put.notificationId, device: laptop.id,
            proof: try laptop.proof(for: put.notificationId, at: harness.clock.now))
        #expect(try laptop.open(other) == "balance")
        // Still refused 119 s on; once the phone's proofs are 2 minutes old, it has room again.
        harness.clock.advance(by: 119)
        let stillRefused = await rpcError {
            try await harness.get(
                put.notificationId, device: phone.id,
                proof: try phone.proof(for: put.notificationId, at: harness.clock.now))
        }
        #expect(stillRefused?.data?["retryAfterSeconds"] == .int(1))
        harness.clock.advance(by: 1)
        _ = try await harness.get(
            put.notificationId, device: phone.id, proof: try phone.proof(for: put.notificationId, at: harness.clock.now)
        )
    }

    @Test(
        "after a restart (SQLite: the replay cache is in memory), a proof accepted before it is refused, a new one accepted"
    )
    func restartRefusesOldProofs() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("proofs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = StoreConfiguration(
            databasePath: directory.appendingPathComponent("store.sqlite").path, storeKeys: .keys(.generate()))
        let clock = TestClock()
        let phone = TestDevice()
        let before = try await StoreHarness(configuration: configuration, clock: clock)
        let put = try await before.put(to: "alice", payload: "balance", sealedTo: [phone])
        let proof = try phone.proof(for: put.notificationId, at: clock.now)
        _ = try await before.get(put.notificationId, device: phone.id, proof: proof)

        // The store restarts 5 s later on the same file (the proof is still within its 60 s window).
        clock.advance(by: 5)
        let after = try await StoreHarness(configuration: configuration, signer: before.signer, clock: clock)
        let replayed = await rpcError { try await after.get(put.notificationId, device: phone.id, proof: proof) }
        #expect(replayed?.code == RPCErrorCode.unauthenticated)
        let fresh = try await after.get(
            put.notificationId, device: phone.id, proof: try phone.proof(for: put.notificationId, at: clock.now))
        #expect(try phone.open(fresh) == "balance")
    }

    @Test("replayed, other notification, other key, expired iat, wrong typ or alg: each is -32001")
    func refusals() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let put = try await harness.put(to: "alice", sealedTo: [phone])
        let other = try await harness.put(to: "alice", sealedTo: [phone])
        let nid = put.notificationId
        let now = harness.clock.now

        let proof = try phone.proof(for: nid, at: now)
        _ = try await harness.get(nid, device: phone.id, proof: proof)
        let replayed = await rpcError { try await harness.get(nid, device: phone.id, proof: proof) }
        #expect(replayed?.code == -32001)

        let forOther = try phone.proof(for: other.notificationId, at: now)
        #expect(await rpcError { try await harness.get(nid, device: phone.id, proof: forOther) }?.code == -32001)

        let otherKey = try phone.proof(for: nid, at: now, signer: .init())
        #expect(await rpcError { try await harness.get(nid, device: phone.id, proof: otherKey) }?.code == -32001)

        let old = try phone.proof(for: nid, at: now.addingTimeInterval(-61))
        #expect(await rpcError { try await harness.get(nid, device: phone.id, proof: old) }?.code == -32001)
        let future = try phone.proof(for: nid, at: now.addingTimeInterval(61))
        #expect(await rpcError { try await harness.get(nid, device: phone.id, proof: future) }?.code == -32001)

        for header in [#"{"typ":"dpop+jwt","alg":"ES256"}"#, #"{"typ":"securepush-proof+jwt","alg":"none"}"#] {
            let forged = try Self.sign(header: header, nid: nid, did: phone.id, iat: now, key: phone.key)
            #expect(await rpcError { try await harness.get(nid, device: phone.id, proof: forged) }?.code == -32001)
        }
        let unsigned = String(proof.split(separator: ".").prefix(2).joined(separator: ".")) + "."
        #expect(await rpcError { try await harness.get(nid, device: phone.id, proof: unsigned) }?.code == -32001)
        // A proof for another device of the same user does not fetch this one's copy.
        let laptop = TestDevice()
        let stolen = try laptop.proof(for: nid, at: now)
        #expect(await rpcError { try await harness.get(nid, device: laptop.id, proof: stolen) }?.code == -32004)
        // Refusals consume nothing: a fresh, good proof still works.
        let fresh = try phone.proof(for: nid, at: now)
        #expect(try phone.open(try await harness.get(nid, device: phone.id, proof: fresh)) == "secret")
    }

    @Test("another user's device gets exactly the -32004 of a missing notification")
    func anotherUsersDevice() async throws {
        let harness = try await StoreHarness()
        let alicePhone = TestDevice()
        let bobPhone = TestDevice()
        let put = try await harness.put(to: "alice", sealedTo: [alicePhone])
        _ = try await harness.put(to: "bob", sealedTo: [bobPhone])
        let now = harness.clock.now
        let missingID = UUID().uuidString.lowercased()
        let missing = await rpcError {
            try await harness.get(missingID, device: bobPhone.id, proof: try bobPhone.proof(for: missingID, at: now))
        }
        let notRecipient = await rpcError {
            try await harness.get(
                put.notificationId, device: bobPhone.id, proof: try bobPhone.proof(for: put.notificationId, at: now))
        }
        #expect(missing?.code == -32004)
        #expect(notRecipient == missing)
        // With bob's token and alice's device id, the same.
        let byToken = await rpcError { try await harness.get(put.notificationId, as: "bob", device: alicePhone.id) }
        #expect(byToken == missing)
    }

    @Test("a proof without deviceId is -32602 naming deviceId")
    func proofNeedsDevice() async throws {
        let harness = try await StoreHarness()
        let phone = TestDevice()
        let put = try await harness.put(to: "alice", sealedTo: [phone])
        let proof = try phone.proof(for: put.notificationId, at: harness.clock.now)
        let error = await rpcError { try await harness.get(put.notificationId, device: nil, proof: proof) }
        #expect(error?.code == -32602 && error?.field == "deviceId")
    }

    static func sign(
        header: String, nid: String, did: String, iat: Date, key: P256.KeyAgreement.PrivateKey
    ) throws -> String {
        let claims = DeviceProof.Claims(
            nid: nid, did: did, iat: Int64(iat.timeIntervalSince1970),
            jti: Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64URLEncodedString())
        let input =
            Data(header.utf8).base64URLEncodedString() + "."
            + (try JSONEncoder().encode(claims)).base64URLEncodedString()
        let signature = try P256.Signing.PrivateKey(rawRepresentation: key.rawRepresentation)
            .signature(for: Data(input.utf8))
        return input + "." + signature.rawRepresentation.base64URLEncodedString()
    }
}
