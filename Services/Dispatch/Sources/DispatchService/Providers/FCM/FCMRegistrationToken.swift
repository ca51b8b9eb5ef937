/// Checks the `token` of an `fcm` device: the FCM registration token the app got from `FirebaseMessaging`.
enum FCMRegistrationToken {
    /// Longest token accepted; real ones are a few hundred characters.
    static let maxLength = 4096

    /// The token to store, or `-32602` naming `token`.
    static func validate(_ token: String?) throws(DispatchError) -> String {
        guard let token, !token.isEmpty else {
            throw .invalidField("token", "an fcm device needs its FCM registration token")
        }
        guard token.utf8.count <= maxLength else {
            throw .invalidField("token", "an FCM registration token is at most \(maxLength) bytes")
        }
        guard token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }) else {
            throw .invalidField("token", "an FCM registration token has no spaces, control or non-ASCII characters")
        }
        return token
    }
}
