import Foundation
import ServiceCore

/// Where the key that seals apps' credentials comes from (`SECUREPUSH_APPS_KEY_FILE`, the store key file's format).
public enum AppsKeySource: Sendable {
    /// Keys given directly (tests, embedding).
    case keys(EncryptionKeyRing)
    /// `SECUREPUSH_APPS_KEY_FILE`: the file must exist and hold at least one key.
    case file(String)
    /// The development default, `<data dir>/apps-keys`: created (0600) by the first `securepush apps create`.
    case generatedFile(String)
    /// Production without `SECUREPUSH_APPS_KEY_FILE`: no app can be created, and a database holding apps is refused.
    case none

    /// The name of the generated file inside the data directory.
    public static let generatedFileName = "apps-keys"

    /// `SECUREPUSH_APPS_KEY_FILE` when set; otherwise `<data dir>/apps-keys` in development, nothing in production.
    public static func fromEnvironment(_ environment: ServiceEnvironment) -> AppsKeySource {
        if let path = environment.string("SECUREPUSH_APPS_KEY_FILE") { return .file(path) }
        if environment.isProduction { return .none }
        return .generatedFile(
            URL(fileURLWithPath: environment.dataDirectory).appendingPathComponent(generatedFileName).path)
    }

    /// The sealer the service opens credentials with; `nil` when there is no key yet (no app can have been sealed).
    /// Throws `ConfigurationError` naming the file and line when a key file is unreadable or malformed.
    public func sealer() throws -> AppCredentialSealer? {
        switch self {
        case .keys(let ring): return AppCredentialSealer(ring: ring)
        case .file(let path): return AppCredentialSealer(ring: try EncryptionKeyFile(path: path, purpose: .apps).load())
        case .generatedFile(let path):
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            return AppCredentialSealer(ring: try EncryptionKeyFile(path: path, purpose: .apps).load())
        case .none: return nil
        }
    }

    /// The sealer `securepush apps create` seals with: the development file is created with a new key when missing;
    /// production without `SECUREPUSH_APPS_KEY_FILE` is refused.
    public func sealerCreatingKey(now: Date) throws -> AppCredentialSealer {
        switch self {
        case .generatedFile(let path):
            let file = EncryptionKeyFile(path: path, purpose: .apps)
            return AppCredentialSealer(ring: try file.loadOrCreate(now: now).ring)
        case .none:
            throw ConfigurationError(
                "SECUREPUSH_APPS_KEY_FILE must be set when SECUREPUSH_ENV=production: apps' credentials are encrypted "
                    + "at rest under its keys. Create one with `securepush apps rotate-key --key-file FILE`, keep a "
                    + "backup, and give every push-dispatch replica the same file")
        default:
            return try sealer()!
        }
    }
}
