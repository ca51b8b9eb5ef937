import Foundation

/// Checks the `token` of a `wns` device: the channel URI the app got from `PushNotificationChannelManager`.
///
/// The device chooses this URL and push-dispatch POSTs its access token to it, so only `https://` URLs on
/// `*.notify.windows.com` are accepted (unless `allowAnyHost`, for tests and sandboxes).
enum WNSChannelURI {
    /// Longest channel URI accepted; real ones are a few hundred characters.
    static let maxLength = 2048

    /// The URI to store (unchanged), or `-32602` naming `token`.
    static func validate(_ token: String?, allowAnyHost: Bool) throws(DispatchError) -> String {
        guard let token, !token.isEmpty else {
            throw .invalidField("token", "a wns device needs its WNS channel URI")
        }
        guard token.utf8.count <= maxLength else {
            throw .invalidField("token", "a WNS channel URI is at most \(maxLength) bytes")
        }
        guard token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }),
            let components = URLComponents(string: token), components.scheme?.lowercased() == "https",
            let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil, components.fragment == nil
        else {
            throw .invalidField("token", "a WNS channel URI is an https:// URL")
        }
        if !allowAnyHost {
            guard host.hasSuffix(WNSConfiguration.channelHostSuffix), components.port == nil else {
                throw .invalidField("token", "a WNS channel URI's host ends with \(WNSConfiguration.channelHostSuffix)")
            }
        }
        return token
    }
}
