import Crypto
import Foundation
import Metrics
import PKCS11

/// Where keys kept in a PKCS#11 module are reached (issue 32): `SECUREPUSH_PKCS11_MODULE` (the module's path) and
/// `SECUREPUSH_PKCS11_PIN_FILE` (the token user's PIN). A key setting that holds a `pkcs11:` URI
/// (`SECUREPUSH_AUTH_SIGNING_KEY`, `SECUREPUSH_AUDIT_KEY`, `SECUREPUSH_STORE_KEY_WRAPPING_KEY`,
/// `SECUREPUSH_APPS_KEY_WRAPPING_KEY`) is opened through it.
///
/// Every failure is a `ConfigurationError` of one line naming the variable at fault: the service refuses to start,
/// and never falls back to a key file.
public struct HardwareModuleConfiguration: Sendable {
    /// `SECUREPUSH_PKCS11_MODULE`.
    public var modulePath: String?
    /// `SECUREPUSH_PKCS11_PIN_FILE`.
    public var pinFile: String?

    public init(modulePath: String? = nil, pinFile: String? = nil) {
        self.modulePath = modulePath
        self.pinFile = pinFile
    }

    public init(environment: ServiceEnvironment) {
        self.init(
            modulePath: environment.string("SECUREPUSH_PKCS11_MODULE"),
            pinFile: environment.string("SECUREPUSH_PKCS11_PIN_FILE"))
    }

    /// Parses the URI `value` of `variable`.
    public static func uri(_ value: String, variable: String) throws(ConfigurationError) -> PKCS11URI {
        do {
            return try PKCS11URI(value)
        } catch {
            throw ConfigurationError("\(variable) is not a valid PKCS#11 URI (RFC 7512): \(error)")
        }
    }

    /// The ECDSA P-256 private key `uri` (the value of `variable`) names.
    /// Its public half is checked against it: a signature made in the module must verify under it.
    public func signingKey(_ uri: PKCS11URI, variable: String) throws(ConfigurationError) -> PKCS11ECPrivateKey {
        let key = try key(uri, variable: variable, find: PKCS11ECPrivateKey.find)
        let message = Data("securepush key check".utf8)
        let raw: [UInt8]
        do {
            raw = try key.sign(digest: Array(SHA256.hash(data: message)))
        } catch {
            throw ConfigurationError("\(variable): \(error)")
        }
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key.publicKeyX963),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
            publicKey.isValidSignature(signature, for: message)
        else {
            throw ConfigurationError(
                "\(variable): the public key beside \(uri.object.map { "'\($0)'" } ?? "the key") does not verify its "
                    + "signatures (a public object that belongs to another key)")
        }
        return key
    }

    /// The AES key `uri` (the value of `variable`) names.
    public func wrappingKey(_ uri: PKCS11URI, variable: String) throws(ConfigurationError) -> PKCS11AESKey {
        try key(uri, variable: variable, find: PKCS11AESKey.find)
    }

    private func key<Key>(
        _ uri: PKCS11URI, variable: String, find: (PKCS11URI, PKCS11Token) throws(PKCS11Error) -> Key
    ) throws(ConfigurationError) -> Key {
        let token = try token(for: uri, variable: variable)
        do {
            return try find(uri, token)
        } catch {
            throw ConfigurationError("\(variable): \(error.reason ?? error.description)")
        }
    }

    /// The token `uri` names, logged in: the module loaded, the PIN read and accepted.
    public func token(for uri: PKCS11URI, variable: String) throws(ConfigurationError) -> PKCS11Token {
        guard let path = uri.modulePath ?? modulePath else {
            throw ConfigurationError(
                "SECUREPUSH_PKCS11_MODULE must be set: \(variable) names a key in a PKCS#11 module (give the module's "
                    + "path, e.g. /usr/lib/softhsm/libsofthsm2.so)")
        }
        let module: PKCS11Module
        do {
            module = try PKCS11Module.load(path: path)
        } catch {
            throw ConfigurationError(
                "SECUREPUSH_PKCS11_MODULE '\(path)' cannot be loaded: \(error.reason ?? error.description)")
        }
        let pin = try readPIN(uri: uri)
        let token: PKCS11Token
        do {
            token = try module.token(uri, pin: pin)
        } catch  where error.isPINRefused {
            throw ConfigurationError(
                "\(pinVariable(uri)): token '\(uri.token)' refused the PIN (\(error.codeName ?? "refused"))")
        } catch {
            throw ConfigurationError(
                "\(variable): \(error.reason.map { "\($0) in '\(path)'" } ?? error.description)")
        }
        return token
    }

    private func pinVariable(_ uri: PKCS11URI) -> String {
        uri.pinSource != nil ? "pin-source of the PKCS#11 URI" : "SECUREPUSH_PKCS11_PIN_FILE"
    }

    /// The PIN from `pin-source` or `SECUREPUSH_PKCS11_PIN_FILE`: the file's text without its trailing line break.
    private func readPIN(uri: PKCS11URI) throws(ConfigurationError) -> String {
        guard let file = uri.pinSource ?? pinFile else {
            throw ConfigurationError(
                "SECUREPUSH_PKCS11_PIN_FILE must be set: the file holding the PIN of token '\(uri.token)'")
        }
        guard let data = FileManager.default.contents(atPath: file), data.count <= 4096,
            let text = String(data: data, encoding: .utf8)
        else {
            throw ConfigurationError("\(pinVariable(uri)) '\(file)' cannot be read")
        }
        let pin = text.trimmingCharacters(in: .newlines)
        guard !pin.isEmpty else { throw ConfigurationError("\(pinVariable(uri)) '\(file)' is empty") }
        return pin
    }
}
