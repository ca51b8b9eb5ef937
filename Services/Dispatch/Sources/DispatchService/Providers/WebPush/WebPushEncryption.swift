import Crypto
import Foundation

/// RFC 8291 message encryption for Web Push, in the `aes128gcm` content coding of RFC 8188.
///
/// Each message uses a fresh ECDH key pair and salt, so nothing but the user agent's private key and auth secret
/// can read it. The body is one record: `salt(16) ‖ rs(4) ‖ idlen(1) ‖ keyid(65 = sender public key)` then the
/// AES-128-GCM ciphertext of `plaintext ‖ 0x02`.
enum WebPushEncryption {
    /// The record size written into the header; the whole message fits one record.
    static let recordSize: UInt32 = 4096
    /// Header (86) + padding delimiter (1) + GCM tag (16) leave this much plaintext in a 4096-byte message,
    /// the most RFC 8291 §4 lets us expect a push service to accept.
    static let maxPlaintextBytes = 3993

    /// Thrown when the plaintext does not fit one message.
    struct PlaintextTooLarge: Error {}

    /// Encrypts `plaintext` for a subscription with a fresh salt and ephemeral key.
    static func encrypt(_ plaintext: Data, for subscription: WebPushSubscription) throws -> Data {
        try encrypt(
            plaintext,
            userAgentPublicKey: subscription.userAgentPublicKey,
            authSecret: subscription.authSecret,
            salt: randomSalt(),
            senderKey: P256.KeyAgreement.PrivateKey()
        )
    }

    /// Encrypts with a given salt and sender key; only tests (the RFC 8291 Appendix A vector) choose them.
    static func encrypt(
        _ plaintext: Data,
        userAgentPublicKey: P256.KeyAgreement.PublicKey,
        authSecret: Data,
        salt: Data,
        senderKey: P256.KeyAgreement.PrivateKey
    ) throws -> Data {
        guard plaintext.count <= maxPlaintextBytes else { throw PlaintextTooLarge() }
        let senderPublic = senderKey.publicKey.x963Representation
        let sharedSecret = try senderKey.sharedSecretFromKeyAgreement(with: userAgentPublicKey)

        // RFC 8291 §3.4: the auth secret and both public keys are bound into the input keying material.
        let keyInfo = Data("WebPush: info\0".utf8) + userAgentPublicKey.x963Representation + senderPublic
        let inputKeyingMaterial = sharedSecret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyingMaterial, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8),
            outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyingMaterial, salt: salt, info: Data("Content-Encoding: nonce\0".utf8),
            outputByteCount: 12)

        // 0x02 marks the last (and only) record; no further padding.
        let sealed = try AES.GCM.seal(
            plaintext + [0x02], using: contentKey,
            nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))

        var body = Data(capacity: 86 + plaintext.count + 17)
        body.append(salt)
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublic.count))
        body.append(senderPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    private static func randomSalt() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
