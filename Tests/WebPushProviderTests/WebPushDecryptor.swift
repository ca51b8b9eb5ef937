import Crypto
import Foundation

/// A browser's side of RFC 8291 / RFC 8188 `aes128gcm`, written independently of the provider (HKDF by hand from
/// HMAC), so the mock push service can read what the provider sent and tests can check it.
struct WebPushDecryptor {
    enum Failure: Error, Equatable {
        case truncatedHeader
        case badRecordSize(UInt32)
        case badKeyID(Int)
        case notOneRecord(Int)
        case authenticationFailed
        case badPadding
    }

    let privateKey: P256.KeyAgreement.PrivateKey
    let authSecret: Data

    /// The plaintext of one `aes128gcm` body, padding removed.
    func decrypt(_ body: Data) throws -> Data {
        let bytes = [UInt8](body)
        guard bytes.count >= 21 else { throw Failure.truncatedHeader }
        let salt = Data(bytes[0..<16])
        let recordSize = bytes[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard recordSize >= 18 else { throw Failure.badRecordSize(recordSize) }
        let keyIDLength = Int(bytes[20])
        guard keyIDLength == 65, bytes.count >= 21 + keyIDLength + 17 else { throw Failure.badKeyID(keyIDLength) }
        let senderPublic = Data(bytes[21..<(21 + keyIDLength)])
        let record = Data(bytes[(21 + keyIDLength)...])
        guard record.count <= recordSize else { throw Failure.notOneRecord(record.count) }

        let sender = try P256.KeyAgreement.PublicKey(x963Representation: senderPublic)
        let ecdh = try privateKey.sharedSecretFromKeyAgreement(with: sender).withUnsafeBytes { Data($0) }
        let keyInfo = Data("WebPush: info\0".utf8) + privateKey.publicKey.x963Representation + senderPublic
        let ikm = Self.hkdf(salt: authSecret, ikm: ecdh, info: keyInfo, length: 32)
        let cek = Self.hkdf(salt: salt, ikm: ikm, info: Data("Content-Encoding: aes128gcm\0".utf8), length: 16)
        let nonce = Self.hkdf(salt: salt, ikm: ikm, info: Data("Content-Encoding: nonce\0".utf8), length: 12)

        let padded: Data
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16))
            padded = try AES.GCM.open(box, using: SymmetricKey(data: cek))
        } catch {
            throw Failure.authenticationFailed
        }
        // RFC 8188 §2: plaintext, then one delimiter (0x02 in the last record), then zeros.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == 0x02 else {
            throw Failure.badPadding
        }
        return Data(padded[padded.startIndex..<delimiter])
    }

    /// RFC 5869 HKDF-SHA-256 with a single expand block (enough for 32 bytes).
    static func hkdf(salt: Data, ikm: Data, info: Data, length: Int) -> Data {
        let prk = HMAC<SHA256>.authenticationCode(for: ikm, using: SymmetricKey(data: salt))
        let okm = HMAC<SHA256>.authenticationCode(for: info + [0x01], using: SymmetricKey(data: Data(prk)))
        return Data(Data(okm).prefix(length))
    }
}
