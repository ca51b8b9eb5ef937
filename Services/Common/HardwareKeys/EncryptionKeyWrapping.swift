import Foundation
import PKCS11
import Synchronization

/// Envelope encryption of a key file's data keys (issue 32): each AES-256 key is stored wrapped by an AES key in a
/// PKCS#11 module (`SECUREPUSH_STORE_KEY_WRAPPING_KEY`, `SECUREPUSH_APPS_KEY_WRAPPING_KEY`), as
/// `<key id> wrapped:<base64url(nonce ‖ ciphertext ‖ tag)>`, and unwrapped in memory at start. The file alone opens
/// nothing; the module alone holds no data key.
///
/// The module is opened on first use (the file's first load, at start), so a missing module, PIN or key refuses the
/// start with one line naming the variable.
public final class EncryptionKeyWrapping: Sendable {
    /// The prefix of a wrapped key's value in a key file.
    public static let prefix = "wrapped:"

    /// The wrapping key's URI.
    public let uri: PKCS11URI
    /// The variable that names it, for errors.
    public let variable: String
    private let module: HardwareModuleConfiguration
    private let opened = OpenedKey()
    /// The health check of the wrapping key (`hsm` in `GET /health`).
    public let probe: HardwareKeyProbe

    /// The wrapping key once opened.
    private final class OpenedKey: Sendable {
        let key = Mutex<PKCS11AESKey?>(nil)
    }

    public init(uri: PKCS11URI, variable: String, module: HardwareModuleConfiguration) {
        self.uri = uri
        self.variable = variable
        self.module = module
        self.probe = HardwareKeyProbe { [opened] in
            opened.key.withLock { $0 }?.probe() ?? "\(variable): the wrapping key was not opened"
        }
    }

    /// The wrapping named by `variable` in `environment`, or `nil` when it is unset.
    public static func fromEnvironment(_ environment: ServiceEnvironment, variable: String) throws(ConfigurationError)
        -> EncryptionKeyWrapping?
    {
        guard let value = environment.string(variable) else { return nil }
        return EncryptionKeyWrapping(
            uri: try HardwareModuleConfiguration.uri(value, variable: variable), variable: variable,
            module: HardwareModuleConfiguration(environment: environment))
    }

    /// The token holding the wrapping key, once it was opened (for health).
    public var token: PKCS11Token? { opened.key.withLock { $0?.token } }

    /// Opens the wrapping key now (a service calls it at start, so a missing module, PIN or key refuses the start
    /// even before a key file exists); returns its token.
    @discardableResult
    public func open() throws(ConfigurationError) -> PKCS11Token {
        try wrappingKey().token
    }

    /// The key file value of `key`: `wrapped:` and its wrapped bytes.
    func wrap(_ key: EncryptionKey) throws(ConfigurationError) -> String {
        let plaintext = key.key.withUnsafeBytes { Array($0) }
        let wrappingKey = try wrappingKey()
        do throws(PKCS11Error) {
            let sealed = try wrappingKey.seal(plaintext, associatedData: Self.associatedData(id: key.id))
            return Self.prefix + Data(sealed).base64URLEncodedString()
        } catch {
            throw ConfigurationError("\(variable): the key '\(key.id)' cannot be wrapped: \(error)")
        }
    }

    /// The 32 bytes of the key `id` from its wrapped value (after `wrapped:`).
    func unwrap(id: String, value: Substring) throws(ConfigurationError) -> Data {
        guard let sealed = Data(base64URLEncoded: String(value)) else {
            throw ConfigurationError("key '\(id)' is not base64url after '\(Self.prefix)'")
        }
        let key = try wrappingKey()
        do throws(PKCS11Error) {
            return Data(try key.open(Array(sealed), associatedData: Self.associatedData(id: id)))
        } catch {
            throw ConfigurationError(
                "\(variable): the key '\(id)' cannot be unwrapped: \(error.reason ?? error.description)")
        }
    }

    /// Binds a wrapped key to its id: a wrapped value moved to another line does not open.
    private static func associatedData(id: String) -> [UInt8] { Array("securepush-data-key:\(id)".utf8) }

    private func wrappingKey() throws(ConfigurationError) -> PKCS11AESKey {
        if let key = opened.key.withLock({ $0 }) { return key }
        let key = try module.wrappingKey(uri, variable: variable)
        // Two first uses at once may both find it; either finding is the same key.
        opened.key.withLock { $0 = $0 ?? key }
        return key
    }
}
