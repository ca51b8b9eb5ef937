import Crypto
import Foundation
import ServiceCore
import SharedModels

/// Random opaque secrets (refresh tokens, generated client secrets) and the hashes they are stored as.
public enum OpaqueToken {
    /// 32 bytes from the system's cryptographically secure generator, base64url without padding (43 characters).
    public static func generate(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }

    /// The SHA-256 of the token's UTF-8, as lowercase hex: what the database keeps instead of the token.
    ///
    /// A plain hash suffices (no salt, no bcrypt) because the token itself has 256 bits of entropy.
    public static func storageHash(of token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
