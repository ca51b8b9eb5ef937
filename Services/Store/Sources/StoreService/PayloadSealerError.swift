/// Why a stored payload could not be opened or sealed. Reaches callers as a JSON-RPC internal error; the message,
/// logged by the server, names the notification and the key, never payload or key bytes.
public struct PayloadSealerError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case missingKey(keyID: String, notificationID: String)
        case authenticationFailed(keyID: String, notificationID: String)
        case unknownScheme(scheme: String, notificationID: String)
        case notificationIDRequired
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// The row names a key the store key file does not hold (removed too early, or another deployment's).
    public static func missingKey(_ keyID: String, notificationID: String) -> PayloadSealerError {
        PayloadSealerError(.missingKey(keyID: keyID, notificationID: notificationID))
    }

    /// The bytes do not authenticate under their key: altered, or moved from another row.
    public static func authenticationFailed(keyID: String, notificationID: String) -> PayloadSealerError {
        PayloadSealerError(.authenticationFailed(keyID: keyID, notificationID: notificationID))
    }

    /// The row's scheme is none this build knows.
    public static func unknownScheme(_ scheme: String, notificationID: String) -> PayloadSealerError {
        PayloadSealerError(.unknownScheme(scheme: String(scheme.prefix(64)), notificationID: notificationID))
    }

    /// The sealer binds every payload to its notification id and was called without one.
    public static let notificationIDRequired = PayloadSealerError(.notificationIDRequired)

    public var description: String {
        switch code {
        case .missingKey(let keyID, let notificationID):
            "the payload of notification \(notificationID) is encrypted under store key '\(keyID)', which the "
                + "store key file (SECUREPUSH_STORE_KEY_FILE) does not hold: restore that key"
        case .authenticationFailed(let keyID, let notificationID):
            "the payload of notification \(notificationID) does not authenticate under store key '\(keyID)': "
                + "the stored bytes were altered or belong to another notification"
        case .unknownScheme(let scheme, let notificationID):
            "the payload of notification \(notificationID) has the unknown scheme '\(scheme)'"
        case .notificationIDRequired:
            "AES-GCM payloads are bound to their notification id: call seal/open with notificationID"
        }
    }
}
