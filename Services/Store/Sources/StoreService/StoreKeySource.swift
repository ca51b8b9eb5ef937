import Foundation
import Logging
import ServiceCore

/// Where the store's AES-256 keys come from.
public enum StoreKeySource: Sendable {
    /// Keys given directly (tests, embedding).
    case keys(EncryptionKeyRing)
    /// `SECUREPUSH_STORE_KEY_FILE`: the file must exist and hold at least one key.
    case file(String)
    /// The development default, `<data dir>/store-keys`: generated (0600) on first start, then reused.
    case generatedFile(String)

    /// The name of the generated file inside the data directory.
    public static let generatedFileName = "store-keys"

    /// The key file, when the keys come from one.
    public var path: String? {
        switch self {
        case .keys: nil
        case .file(let path), .generatedFile(let path): path
        }
    }

    /// The sealer for these keys: a file is read now (throwing `ConfigurationError` naming it and the line) and
    /// again whenever a row names a key it lacks.
    /// With `wrapping`, the file's keys are wrapped by a key in a PKCS#11 module (and wrapped in place when found in
    /// clear).
    public func makeSealer(
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, wrapping: EncryptionKeyWrapping? = nil
    ) throws -> AESGCMPayloadSealer {
        switch self {
        case .keys(let ring):
            return AESGCMPayloadSealer(ring: ring, now: now)
        case .file(let path):
            let file = EncryptionKeyFile(path: path, purpose: .store, wrapping: wrapping)
            let ring = try file.load()
            if let mode = file.permissions, mode & 0o077 != 0 {
                // Not refused: mounted secrets (Kubernetes' default 0644) may be readable by others inside a container.
                logger.warning(
                    "store.keys.readable_by_others",
                    metadata: ["store.key_file": "\(path)", "file.mode": "\(String(mode, radix: 8))"])
            }
            return AESGCMPayloadSealer(ring: ring, reload: { try file.load() }, now: now)
        case .generatedFile(let path):
            let file = EncryptionKeyFile(path: path, purpose: .store, wrapping: wrapping)
            let (ring, created) = try file.loadOrCreate(now: now())
            if created {
                logger.notice(
                    "store.keys.generated",
                    metadata: ["store.key_file": "\(path)", "store.key_id": "\(ring.current.id)"])
            }
            return AESGCMPayloadSealer(ring: ring, reload: { try file.load() }, now: now)
        }
    }
}

extension EncryptionKeyFile.Purpose {
    /// The store key file, `SECUREPUSH_STORE_KEY_FILE`.
    public static let store = EncryptionKeyFile.Purpose(
        name: "store key file", variable: "SECUREPUSH_STORE_KEY_FILE", encrypts: "new payloads",
        rotateCommand: "securepush store-keys rotate", otherCreation: "`securepush certs --secrets-dir`")
}
