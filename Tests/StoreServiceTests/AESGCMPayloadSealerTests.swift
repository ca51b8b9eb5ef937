import Foundation
import ServiceCore
import StoreService
import Synchronization
import Testing

@Suite("AES-256-GCM payload sealer")
struct AESGCMPayloadSealerTests {
    let payload = Data("the launch code is 0000, do not tell anyone".utf8)

    @Test("a payload round-trips; what is stored is nonce, ciphertext and tag under `aes256gcm:<key id>`")
    func roundTrip() throws {
        let ring = EncryptionKeyRing.generate()
        let sealer = AESGCMPayloadSealer(ring: ring)
        let sealed = try sealer.seal(payload, notificationID: "n1")
        #expect(sealed.scheme == "aes256gcm:\(ring.current.id)")
        #expect(sealed.bytes.count == 12 + payload.count + 16)
        #expect(sealed.bytes.range(of: payload.prefix(8)) == nil)
        #expect(try sealer.open(sealed.bytes, scheme: sealed.scheme, notificationID: "n1") == payload)
        let again = try sealer.seal(payload, notificationID: "n1")
        #expect(again.bytes.prefix(12) != sealed.bytes.prefix(12), "a fresh nonce per row")
    }

    @Test("flipping any one stored byte is an error, never garbage")
    func tamper() throws {
        let sealer = AESGCMPayloadSealer(ring: .generate())
        let sealed = try sealer.seal(payload, notificationID: "n1")
        for index in sealed.bytes.indices {
            var altered = sealed.bytes
            altered[index] ^= 0x01
            let error = #expect(throws: PayloadSealerError.self) {
                try sealer.open(altered, scheme: sealed.scheme, notificationID: "n1")
            }
            #expect(error?.description.contains("does not authenticate") == true)
        }
        #expect(throws: PayloadSealerError.self) {
            try sealer.open(sealed.bytes.prefix(20), scheme: sealed.scheme, notificationID: "n1")
        }
    }

    @Test("a payload copied into another notification's row does not open")
    func boundToNotification() throws {
        let sealer = AESGCMPayloadSealer(ring: .generate())
        let sealed = try sealer.seal(payload, notificationID: "n1")
        #expect(throws: PayloadSealerError.self) {
            try sealer.open(sealed.bytes, scheme: sealed.scheme, notificationID: "n2")
        }
    }

    @Test("a row under a key the ring lacks is refused naming the key; another key of the same name fails to open")
    func wrongKey() throws {
        let writer = AESGCMPayloadSealer(ring: .generate())
        let sealed = try writer.seal(payload, notificationID: "n1")
        let reader = AESGCMPayloadSealer(ring: .generate())
        let missing = #expect(throws: PayloadSealerError.self) {
            try reader.open(sealed.bytes, scheme: sealed.scheme, notificationID: "n1")
        }
        let keyID = writer.ring.current.id
        #expect(missing == .missingKey(keyID, notificationID: "n1"))
        #expect(missing?.description.contains("'\(keyID)'") == true)

        let impostor = try #require(EncryptionKey(id: keyID, bytes: Data(repeating: 9, count: 32)))
        let confused = AESGCMPayloadSealer(ring: try #require(EncryptionKeyRing([impostor])))
        #expect(throws: PayloadSealerError.authenticationFailed(keyID: keyID, notificationID: "n1")) {
            try confused.open(sealed.bytes, scheme: sealed.scheme, notificationID: "n1")
        }
    }

    @Test("rows stored before encryption at rest (`identity`) still open; unknown schemes are refused")
    func identityRows() throws {
        let sealer = AESGCMPayloadSealer(ring: .generate())
        #expect(try sealer.open(payload, scheme: "identity", notificationID: "n1") == payload)
        #expect(throws: PayloadSealerError.unknownScheme("rot13", notificationID: "n1")) {
            try sealer.open(payload, scheme: "rot13", notificationID: "n1")
        }
        #expect(throws: PayloadSealerError.notificationIDRequired) { try sealer.seal(payload) }
    }

    @Test("a row under a key added to the file after start opens: the sealer re-reads the file, at most once a second")
    func reloadsOnUnknownKey() throws {
        let old = EncryptionKeyRing.generate()
        let rotated = try #require(EncryptionKeyRing(old.keys + [EncryptionKey.generate(now: Date())]))
        let sealed = try AESGCMPayloadSealer(ring: rotated).seal(payload, notificationID: "n1")
        let reloads = Mutex(0)
        let clock = Mutex(Date(timeIntervalSince1970: 0))
        let sealer = AESGCMPayloadSealer(
            ring: old,
            reload: {
                reloads.withLock { $0 += 1 }
                return rotated
            }, now: { clock.withLock { $0 } })
        #expect(try sealer.open(sealed.bytes, scheme: sealed.scheme, notificationID: "n1") == payload)
        #expect(sealer.scheme == "aes256gcm:\(rotated.current.id)", "new payloads use the new key")
        #expect(reloads.withLock { $0 } == 1)

        let foreign = try AESGCMPayloadSealer(ring: .generate()).seal(payload, notificationID: "n2")
        for _ in 0..<3 {
            #expect(throws: PayloadSealerError.self) {
                try sealer.open(foreign.bytes, scheme: foreign.scheme, notificationID: "n2")
            }
        }
        #expect(reloads.withLock { $0 } == 1, "one reload a second, however many unknown rows")
        clock.withLock { $0 = $0.addingTimeInterval(2) }
        #expect(throws: PayloadSealerError.self) {
            try sealer.open(foreign.bytes, scheme: foreign.scheme, notificationID: "n2")
        }
        #expect(reloads.withLock { $0 } == 2)
    }
}
