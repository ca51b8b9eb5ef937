import Crypto
import Foundation
import PrivateFiles

/// The secrets a containerised deployment needs, generated once into a directory (mode 0700, files 0600) so that no
/// published default ever guards a running system: the backend client's secret, push-dispatch's client secret,
/// the store's client secret, auth's ES256 signing key, the audit checkpoint key and the store's and the apps' key files. Existing files are kept, so every restart uses
/// the same secrets.
public struct DevelopmentSecrets: Sendable {
    /// The files, by name.
    public enum File: String, CaseIterable, Sendable {
        /// `SECUREPUSH_BOOTSTRAP_CLIENT_SECRET_FILE`: the app backend's client secret (scope `push:send`).
        case backendClientSecret = "backend-client-secret"
        /// `SECUREPUSH_DISPATCH_CLIENT_SECRET_FILE`: push-dispatch's client secret (scope `store:write`).
        case dispatchClientSecret = "dispatch-client-secret"
        /// `SECUREPUSH_STORE_CLIENT_SECRET_FILE`: notification-store's client secret (scope `audit:keys`).
        case storeClientSecret = "store-client-secret"
        /// `SECUREPUSH_AUDIT_KEY_FILE`: the ECDSA P-256 key that signs the audit trails' checkpoints, PEM.
        case auditSigningKey = "audit-signing-key.pem"
        /// `SECUREPUSH_AUTH_SIGNING_KEY_FILE`: auth's ES256 (P-256) signing key, PEM.
        case authSigningKey = "auth-signing-key.pem"
        /// `SECUREPUSH_STORE_KEY_FILE`: notification-store's AES-256 keys for payloads at rest, one
        /// `<key id> <base64 of 32 bytes>` line (the format `securepush store-keys rotate` appends to).
        case storeKeys = "store-keys"
        /// `SECUREPUSH_APPS_KEY_FILE`: push-dispatch's AES-256 keys for the apps' credentials (issue 27), in the store
        /// key file's format (`securepush apps rotate-key` appends to it). Every push-dispatch replica reads it.
        case appsKeys = "apps-keys"
    }

    /// Where the secrets live.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The path of one secret.
    public func path(_ file: File) -> String {
        (directory as NSString).appendingPathComponent(file.rawValue)
    }

    /// Generates every missing secret; returns the files generated and the files kept.
    public func ensure() throws -> (generated: [File], kept: [File]) {
        try PrivateFile.createDirectory(directory)
        var generated: [File] = []
        var kept: [File] = []
        for file in File.allCases {
            if FileManager.default.fileExists(atPath: path(file)) {
                kept.append(file)
                continue
            }
            // Created only if absent: a secret another process wrote meanwhile is kept, never replaced.
            if try PrivateFile.write(Data(Self.generate(file).utf8), to: path(file), existing: .keep) {
                generated.append(file)
            } else {
                kept.append(file)
            }
        }
        return (generated, kept)
    }

    /// A new value for `file`: 32 random bytes (base64url, 43 characters) for secrets, a new P-256 key for auth, a
    /// key file with one random AES-256 key for the store and for the apps.
    static func generate(_ file: File) -> String {
        switch file {
        case .authSigningKey, .auditSigningKey:
            return P256.Signing.PrivateKey().pemRepresentation + "\n"
        case .storeKeys:
            return keyFile(title: "store keys (SECUREPUSH_STORE_KEY_FILE)", encrypts: "new payloads")
        case .appsKeys:
            return keyFile(title: "apps keys (SECUREPUSH_APPS_KEY_FILE)", encrypts: "the apps' credentials")
        case .backendClientSecret, .dispatchClientSecret, .storeClientSecret:
            let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            let text = bytes.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            return text + "\n"
        }
    }

    /// A key file holding one random AES-256 key: `<key id> <base64 of 32 bytes>` after a comment saying what it is.
    private static func keyFile(title: String, encrypts: String) -> String {
        let id = "initial-" + (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
        return "# SecurePush \(title): `<key id> <base64 of 32 bytes>` per line.\n"
            + "# The last key encrypts \(encrypts); every key listed still decrypts.\n\(id) \(key)\n"
    }
}
