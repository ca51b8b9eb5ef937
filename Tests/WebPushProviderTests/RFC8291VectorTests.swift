import Crypto
import Foundation
import Testing

@testable import DispatchService

/// RFC 8291 Appendix A: every input fixed, so the output is known byte for byte.
enum AppendixA {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A"
        + "_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) throws -> Data { try #require(Data(base64URL: text)) }
}

@Suite("RFC 8291 message encryption")
struct RFC8291VectorTests {
    @Test("the Appendix A inputs encrypt to the Appendix A body, byte for byte")
    func appendixAVector() throws {
        let senderKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: AppendixA.bytes(AppendixA.asPrivate))
        #expect(senderKey.publicKey.x963Representation == (try AppendixA.bytes(AppendixA.asPublic)))
        let body = try WebPushEncryption.encrypt(
            Data(AppendixA.plaintext.utf8),
            userAgentPublicKey: P256.KeyAgreement.PublicKey(x963Representation: AppendixA.bytes(AppendixA.uaPublic)),
            authSecret: AppendixA.bytes(AppendixA.authSecret),
            salt: AppendixA.bytes(AppendixA.salt),
            senderKey: senderKey
        )
        #expect(body.base64URL == AppendixA.body)
    }

    @Test("the test's browser-side decryptor reads the Appendix A body")
    func decryptorReadsAppendixA() throws {
        let decryptor = WebPushDecryptor(
            privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: AppendixA.bytes(AppendixA.uaPrivate)),
            authSecret: try AppendixA.bytes(AppendixA.authSecret))
        let plaintext = try decryptor.decrypt(AppendixA.bytes(AppendixA.body))
        #expect(String(decoding: plaintext, as: UTF8.self) == AppendixA.plaintext)
    }

    @Test("a body with one flipped bit does not decrypt")
    func tamperedBodyFails() throws {
        let decryptor = WebPushDecryptor(
            privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: AppendixA.bytes(AppendixA.uaPrivate)),
            authSecret: try AppendixA.bytes(AppendixA.authSecret))
        var body = try AppendixA.bytes(AppendixA.body)
        body[body.count - 20] ^= 0x01
        #expect(throws: WebPushDecryptor.Failure.authenticationFailed) { try decryptor.decrypt(body) }
    }

    @Test(
        "fresh messages decrypt for their subscription",
        arguments: [0, 1, 41, 1000, WebPushEncryption.maxPlaintextBytes])
    func roundTrip(length: Int) throws {
        let browser = TestSubscription(endpoint: "https://push.example.net/push/1")
        let subscription = try WebPushSubscription(token: browser.token)
        let plaintext = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
        let body = try WebPushEncryption.encrypt(plaintext, for: subscription)
        #expect(try browser.decryptor.decrypt(body) == plaintext)
        #expect(body.count == 86 + length + 17)
        #expect(body.count <= 4096)
    }

    @Test("every message has its own salt and sender key, in an RFC 8188 header with record size 4096")
    func freshSaltAndKey() throws {
        let subscription = try WebPushSubscription(
            token: TestSubscription(endpoint: "https://push.example.net/push/1").token)
        let first = [UInt8](try WebPushEncryption.encrypt(Data("same".utf8), for: subscription))
        let second = [UInt8](try WebPushEncryption.encrypt(Data("same".utf8), for: subscription))
        #expect(first[0..<16] != second[0..<16])
        #expect(first[21..<86] != second[21..<86])
        for body in [first, second] {
            #expect(body[16..<20] == [0x00, 0x00, 0x10, 0x00])
            #expect(body[20] == 65)
            #expect(body[21] == 0x04)
        }
    }

    @Test("a plaintext that would not fit one 4096-byte message is refused")
    func tooLarge() throws {
        let subscription = try WebPushSubscription(
            token: TestSubscription(endpoint: "https://push.example.net/push/1").token)
        #expect(throws: WebPushEncryption.PlaintextTooLarge.self) {
            try WebPushEncryption.encrypt(
                Data(count: WebPushEncryption.maxPlaintextBytes + 1), for: subscription)
        }
    }
}
