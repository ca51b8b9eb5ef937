import Crypto
import Foundation
import PrivateFiles
import SharedModels

/// The key audit checkpoints are signed with: ECDSA P-256, from `SECUREPUSH_AUDIT_KEY_FILE` (PEM, PKCS#8 or SEC 1),
/// generated in development at `<data dir>/audit-signing-key.pem`. Verification needs only its public key.
public struct AuditSigningKey: Sendable {
    /// The private key.
    public let privateKey: P256.Signing.PrivateKey

    public init(_ privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// A new key, in memory only (tests).
    public static func generate() -> AuditSigningKey { AuditSigningKey(P256.Signing.PrivateKey()) }

    /// The public key checkpoints verify under.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// The first 16 characters of base64url(SHA-256(the public key's DER)): names the key in every checkpoint.
    public var keyID: String { Self.keyID(of: publicKey) }

    /// The id of `publicKey`.
    public static func keyID(of publicKey: P256.Signing.PublicKey) -> String {
        String(Data(SHA256.hash(data: publicKey.derRepresentation)).base64URLEncodedString().prefix(16))
    }

    /// Signs `checkpoint`'s message, filling its key id and signature.
    public func sign(_ checkpoint: inout AuditCheckpoint) throws {
        checkpoint.keyID = keyID
        checkpoint.signature = try privateKey.signature(for: checkpoint.message).rawRepresentation
            .base64URLEncodedString()
    }

    /// The file name the development default uses inside the data directory.
    public static let generatedFileName = "audit-signing-key.pem"

    /// Reads the key at `path`; throws `ConfigurationError` naming `variable` when it cannot.
    public static func load(path: String, variable: String = "SECUREPUSH_AUDIT_KEY_FILE") throws(ConfigurationError)
        -> AuditSigningKey
    {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(
                "\(variable) '\(path)' cannot be read (create one with `securepush audit keygen --key-file \(path)`)")
        }
        do {
            return AuditSigningKey(try P256.Signing.PrivateKey(pemRepresentation: text))
        } catch {
            throw ConfigurationError("\(variable) '\(path)' is not a PEM ECDSA P-256 private key")
        }
    }

    /// Reads the key at `path`, first creating it (0600) when nothing is there.
    public static func loadOrCreate(path: String) throws -> (key: AuditSigningKey, created: Bool) {
        let created = try PrivateFile.write(
            Data(P256.Signing.PrivateKey().pemRepresentation.utf8), to: path, existing: .keep)
        return (try load(path: path), created)
    }

    /// The public key in a PEM file at `path`: a public key (`--public-key`), or a private key whose public half is
    /// taken.
    public static func publicKey(path: String) throws(ConfigurationError) -> P256.Signing.PublicKey {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError("'\(path)' cannot be read")
        }
        if let key = try? P256.Signing.PublicKey(pemRepresentation: text) { return key }
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: text) { return key.publicKey }
        throw ConfigurationError("'\(path)' holds no PEM ECDSA P-256 key")
    }
}
