import Crypto
import Foundation
import JSONRPC
import SharedModels

/// One committed entry of an audit chain, as stored: its body is the exact JSON text its hash covers.
///
/// The body holds the entry's chain, sequence number, time, type, the previous entry's hash (`prev`, empty for a
/// chain's genesis entry) and its pseudonymised fields; ``hash`` is base64url(SHA-256(body)). Changing any byte of a
/// body changes its hash, which the next entry's `prev` and the next signed ``AuditCheckpoint`` pin.
public struct AuditEntry: Sendable, Hashable {
    /// The chain (one per process run: its replica id).
    public var chain: String
    /// 1 for the chain's genesis entry, then one more per entry.
    public var sequence: Int64
    /// When the action happened, in milliseconds since 1970 (also inside the body).
    public var recordedAt: Int64
    /// The action (also inside the body).
    public var type: String
    /// The JSON text the hash covers.
    public var body: String
    /// base64url(SHA-256(body)).
    public var hash: String

    public init(chain: String, sequence: Int64, recordedAt: Int64, type: String, body: String, hash: String) {
        self.chain = chain
        self.sequence = sequence
        self.recordedAt = recordedAt
        self.type = type
        self.body = body
        self.hash = hash
    }

    /// The entry whose body is `bytes` (as ``AuditBodyWriter`` writes it), its hash computed here.
    init(chain: String, sequence: Int64, recordedAt: Int64, type: String, bytes: [UInt8]) {
        self.init(
            chain: chain, sequence: sequence, recordedAt: recordedAt, type: type,
            body: String(decoding: bytes, as: UTF8.self), hash: Self.hash(of: bytes))
    }

    /// base64url(SHA-256(`bytes`)).
    public static func hash(of bytes: some DataProtocol) -> String {
        Base64URL.encode(SHA256.hash(data: bytes))
    }

    /// The body, parsed; `nil` when it is not a JSON object.
    public var parsedBody: [String: JSONValue]? {
        guard case .object(let members)? = try? JSONValueParser.parse(Array(body.utf8)) else { return nil }
        return members
    }
}
