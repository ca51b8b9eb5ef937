import Crypto
import Foundation
import ServiceCore

/// Encrypts apps' credentials for the `app` table (and webhooks' secrets for `webhook_endpoint`) with the keys of `SECUREPUSH_APPS_KEY_FILE` (AES-256-GCM, the app id
/// as associated data, so a row copied onto another app does not decrypt). A sealed value reads
/// `aes256gcm:<key id>:<base64 of nonce‖ciphertext‖tag>`; the key file's last key seals, every key in it opens.
public struct AppCredentialSealer: Sendable {
    /// The prefix of every sealed value.
    static let scheme = "aes256gcm"

    /// The keys, the last one sealing.
    public let ring: EncryptionKeyRing

    public init(ring: EncryptionKeyRing) {
        self.ring = ring
    }

    /// `credentials` of `appID`, sealed with the current key.
    public func seal(_ credentials: AppCredentials, appID: String) throws -> String {
        try seal(try JSONEncoder().encode(credentials), context: appID)
    }

    /// The credentials sealed in `value` for `appID`; throws `ConfigurationError` when the key is missing from the key
    /// file or the value does not open (never saying anything about its contents).
    public func open(_ value: String, appID: String) throws -> AppCredentials {
        let plaintext = try open(value, context: appID, what: "the credentials of app '\(appID)'")
        do {
            return try JSONDecoder().decode(AppCredentials.self, from: plaintext)
        } catch {
            throw ConfigurationError("the credentials of app '\(appID)' do not open with their key")
        }
    }

    /// `plaintext` sealed with the current key, `context` (e.g. the app id) authenticated with it.
    func seal(_ plaintext: Data, context: String) throws -> String {
        let key = ring.current
        let box = try AES.GCM.seal(plaintext, using: key.key, authenticating: Data(context.utf8))
        return "\(Self.scheme):\(key.id):\(box.combined!.base64EncodedString())"
    }

    /// The bytes sealed in `value` with `context`; `what` names them in errors (`ConfigurationError` when the key is
    /// missing from the key file or the value does not open).
    func open(_ value: String, context: String, what: String) throws -> Data {
        let parts = value.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == Self.scheme, let combined = Data(base64Encoded: parts[2]) else {
            throw ConfigurationError("\(what) are not in the aes256gcm format")
        }
        guard let key = ring.key(id: parts[1]) else {
            throw ConfigurationError(
                "\(what) are sealed with key '\(parts[1])', which SECUREPUSH_APPS_KEY_FILE does not hold")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            return try AES.GCM.open(box, using: key.key, authenticating: Data(context.utf8))
        } catch {
            throw ConfigurationError("\(what) do not open with key '\(parts[1])'")
        }
    }

    /// The id of the key `value` was sealed with.
    static func keyID(of value: String) -> String? {
        let parts = value.split(separator: ":", maxSplits: 2)
        return parts.count == 3 ? String(parts[1]) : nil
    }
}

extension EncryptionKeyFile.Purpose {
    /// The apps key file, `SECUREPUSH_APPS_KEY_FILE`.
    public static let apps = EncryptionKeyFile.Purpose(
        name: "apps key file", variable: "SECUREPUSH_APPS_KEY_FILE", encrypts: "apps' provider credentials",
        rotateCommand: "securepush apps rotate-key")
}
