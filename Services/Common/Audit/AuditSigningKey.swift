import Crypto
import Foundation
import PKCS11
import PrivateFiles
import SharedModels

/// The key audit checkpoints are signed with: ECDSA P-256, from `SECUREPUSH_AUDIT_KEY_FILE` (PEM, PKCS#8 or SEC 1),
/// generated in development at `<data dir>/audit-signing-key.pem`, or kept in a PKCS#11 module
/// (`SECUREPUSH_AUDIT_KEY=pkcs11:…`), where it signs and stays. Verification needs only its public key.
public struct AuditSigningKey: Sendable {
    /// Where signatures are made.
    enum Signer: Sendable {
        case memory(P256.Signing.PrivateKey)
        case module(PKCS11ECPrivateKey)
    }

    let signer: Signer
    /// The public key checkpoints verify under.
    public let publicKey: P256.Signing.PublicKey
    /// The health check of a key in a module (`hsm` in `GET /health`); `nil` in memory.
    public let moduleProbe: HardwareKeyProbe?

    public init(_ privateKey: P256.Signing.PrivateKey) {
        self.signer = .memory(privateKey)
        self.publicKey = privateKey.publicKey
        self.moduleProbe = nil
    }

    /// A key kept in a PKCS#11 module; throws when its public key is not a valid P-256 point.
    public init(module key: PKCS11ECPrivateKey) throws {
        self.signer = .module(key)
        self.publicKey = try P256.Signing.PublicKey(x963Representation: key.publicKeyX963)
        self.moduleProbe = HardwareKeyProbe { key.probe() }
    }

    /// The token holding the key, when it is in a module (for health).
    public var moduleToken: PKCS11Token? {
        if case .module(let key) = signer { return key.token }
        return nil
    }

    /// A new key, in memory only (tests).
    public static func generate() -> AuditSigningKey { AuditSigningKey(P256.Signing.PrivateKey()) }

    /// The first 16 characters of base64url(SHA-256(the public key's DER)): names the key in every checkpoint.
    public var keyID: String { Self.keyID(of: publicKey) }

    /// The id of `publicKey`.
    public static func keyID(of publicKey: P256.Signing.PublicKey) -> String {
        String(Data(SHA256.hash(data: publicKey.derRepresentation)).base64URLEncodedString().prefix(16))
    }

    /// Signs `checkpoint`'s message, filling its key id and signature.
    /// A module failing is ``HardwareModuleUnavailable``: the checkpoint waits and is tried again, never signed by
    /// another key.
    public func sign(_ checkpoint: inout AuditCheckpoint) throws {
        let signature: Data
        switch signer {
        case .memory(let key):
            signature = try key.signature(for: checkpoint.message).rawRepresentation
        case .module(let key):
            do throws(PKCS11Error) {
                // A checkpoint a minute at most: signed inline by the writer, which waits for nothing else.
                signature = Data(try key.sign(digest: Array(SHA256.hash(data: checkpoint.message))))
            } catch {
                throw HardwareModuleUnavailable(error)
            }
        }
        checkpoint.keyID = keyID
        checkpoint.signature = signature.base64URLEncodedString()
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
