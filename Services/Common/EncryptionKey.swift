import Crypto
import Foundation

/// One AES-256 key of a key file, with the id recorded in every row it encrypts (e.g. the store's `aes256gcm:<id>`).
public struct EncryptionKey: Sendable {
    /// Characters a key id may use (it is written into the key file and into `payload_scheme`).
    public static let idCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
    /// Lengths a key id may have.
    public static let idLengths = 1...64
    /// Bytes of key material: AES-256.
    public static let byteCount = 32

    /// The key's id.
    public let id: String
    /// The key itself, for AES-GCM.
    public let key: SymmetricKey

    /// A key from its id and 32 bytes; `nil` when either is malformed.
    public init?(id: String, bytes: Data) {
        guard Self.isValidID(id), bytes.count == Self.byteCount else { return nil }
        self.id = id
        self.key = SymmetricKey(data: bytes)
    }

    /// A new random key whose id says when it was made: `<yyyyMMdd>-<8 hex>` in UTC, e.g. `20261124-3fa9c1d2`.
    public static func generate(now: Date) -> EncryptionKey {
        let day = now.formatted(
            Date.VerbatimFormatStyle(
                format: "\(year: .defaultDigits)\(month: .twoDigits)\(day: .twoDigits)", timeZone: .gmt,
                calendar: Calendar(identifier: .gregorian)))
        let suffix = (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return EncryptionKey(id: "\(day)-\(suffix)", bytes: bytes)!
    }

    /// Whether `id` can name a key.
    public static func isValidID(_ id: String) -> Bool {
        idLengths.contains(id.count) && id.unicodeScalars.allSatisfy(idCharacters.contains)
    }

    /// The key file line for this key: `<id> <base64 key>`.
    public var fileLine: String {
        "\(id) \(key.withUnsafeBytes { Data($0) }.base64EncodedString())"
    }
}
