import Crypto
import Foundation
import JSONRPC

/// A signed statement that a chain's entry `sequence` had the hash `hash` at `signedAt`: what makes rewriting or
/// truncating a chain detectable. Written to the database and, one JSON line each, to a file outside it
/// (`SECUREPUSH_AUDIT_CHECKPOINT_DIR/<service>/<chain>.jsonl`).
public struct AuditCheckpoint: Sendable, Hashable {
    /// The service whose trail this is (`auth`, `notification-store`, `push-dispatch`).
    public var service: String
    /// The chain.
    public var chain: String
    /// The entry the checkpoint covers (and every one before it).
    public var sequence: Int64
    /// That entry's hash.
    public var hash: String
    /// When it was signed, in milliseconds since 1970.
    public var signedAt: Int64
    /// The signing key's id (``AuditSigningKey/keyID``).
    public var keyID: String
    /// ECDSA P-256 over SHA-256 of ``message``, `r‖s` base64url.
    public var signature: String

    public init(
        service: String, chain: String, sequence: Int64, hash: String, signedAt: Int64, keyID: String,
        signature: String
    ) {
        self.service = service
        self.chain = chain
        self.sequence = sequence
        self.hash = hash
        self.signedAt = signedAt
        self.keyID = keyID
        self.signature = signature
    }

    /// The bytes the signature covers.
    public var message: Data {
        Data("securepush-audit-checkpoint/v1\n\(service)\n\(chain)\n\(sequence)\n\(hash)\n\(signedAt)".utf8)
    }

    /// Whether the signature verifies under `key`.
    public func isSigned(by key: P256.Signing.PublicKey) -> Bool {
        guard let raw = Data(base64URLEncoded: signature),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// The checkpoint as one line of its file.
    public var jsonLine: String {
        let value = JSONValue.object([
            "service": .string(service), "chain": .string(chain), "sequence": .int(sequence), "hash": .string(hash),
            "signedAt": .int(signedAt), "keyId": .string(keyID), "signature": .string(signature),
        ])
        return String(decoding: value.jsonBytes, as: UTF8.self)
    }

    /// A checkpoint read back from its file's line; `nil` when the line is not one.
    public init?(jsonLine line: Substring) {
        guard case .object(let members)? = try? JSONValueParser.parse(Array(line.utf8)),
            case .string(let service)? = members["service"], case .string(let chain)? = members["chain"],
            case .int(let sequence)? = members["sequence"], case .string(let hash)? = members["hash"],
            case .int(let signedAt)? = members["signedAt"], case .string(let keyID)? = members["keyId"],
            case .string(let signature)? = members["signature"]
        else { return nil }
        self.init(
            service: service, chain: chain, sequence: sequence, hash: hash, signedAt: signedAt, keyID: keyID,
            signature: signature)
    }
}
