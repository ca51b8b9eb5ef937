import Crypto
import Foundation
import SealedPush
import SharedModels
import Testing

@Suite("sealing: HPKE base mode, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM")
struct HPKEVectorTests {
    /// RFC 9180 Appendix A.3.1 (base mode), first encryption (sequence 0).
    enum Vector {
        static let info = "4f6465206f6e2061204772656369616e2055726e"
        static let skRm = "f3ce7fdae57e1a310d87f1ebbde6f328be0a99cdbcadf4d6589cf29de4b8ffd2"
        static let pkRm =
            "04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a826a779b4cf969b8a0e539c7f62fb3d30ad6aa8f"
            + "80e30f1d128aafd68a2ce72ea0"
        static let enc =
            "04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e5b7f951c0900be863c"
            + "403ce65c9bfcb9382657222d18c4"
        static let pt = "4265617574792069732074727574682c20747275746820626561757479"
        static let aad = "436f756e742d30"
        static let ct =
            "5ad590bb8baa577f8619db35a36311226a896e7342a6d836d8b7bcd2f20b6c7f9076ac232e3ab2523f39513434"
    }

    static func hex(_ text: String) -> Data {
        var bytes = Data()
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test("the RFC 9180 A.3 test vector opens with our suite: same key pair, same plaintext")
    func rfc9180Vector() throws {
        let recipient = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.hex(Vector.skRm))
        #expect(recipient.publicKey.x963Representation == Self.hex(Vector.pkRm))
        let opened = try SealedPayloadCipher.open(
            enc: Self.hex(Vector.enc), ciphertext: Self.hex(Vector.ct), info: Self.hex(Vector.info),
            aad: Self.hex(Vector.aad), privateKey: recipient)
        #expect(opened == Self.hex(Vector.pt))
        #expect(String(decoding: opened, as: UTF8.self) == "Beauty is truth, truth beauty")
    }

    @Test("info and aad are the contract's strings")
    func infoAndAAD() {
        #expect(
            SealedPayloadCipher.info(notificationID: "n-1", deviceID: "d-2") == Data("securepush/v1 n-1 d-2".utf8))
        #expect(SealedPayloadCipher.aad(notificationID: "n-1") == Data("n-1".utf8))
    }

    @Test("a sealed copy opens with the device's key, and with nothing else")
    func roundTrip() throws {
        let device = P256.KeyAgreement.PrivateKey()
        let nid = "c0ffee00-1234-4abc-8def-0123456789ab"
        let did = "9b2f8c3e-6a1d-4e7b-8c5f-2d3e4f5a6b7c"
        let copy = try SealedPayloadCipher.seal(
            Data("Kontostand 1 234,56 € 🔐".utf8), to: DevicePublicKey(device.publicKey), notificationID: nid,
            deviceID: did)
        #expect(copy.deviceId == did)
        #expect(Data(strictBase64URL: copy.enc)?.count == 65)
        let opened = try SealedPayloadCipher.open(copy, notificationID: nid, privateKey: device)
        #expect(String(decoding: opened, as: UTF8.self) == "Kontostand 1 234,56 € 🔐")
        // Bound to its notification, its device and its key.
        #expect(throws: (any Error).self) {
            try SealedPayloadCipher.open(copy, notificationID: "other", privateKey: device)
        }
        var moved = copy
        moved.deviceId = "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f1a0"
        #expect(throws: (any Error).self) {
            try SealedPayloadCipher.open(moved, notificationID: nid, privateKey: device)
        }
        #expect(throws: (any Error).self) {
            try SealedPayloadCipher.open(copy, notificationID: nid, privateKey: P256.KeyAgreement.PrivateKey())
        }
    }
}
