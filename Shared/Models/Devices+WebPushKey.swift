extension Devices {
    /// `devices.webPushKey {appId?}` (no token) → `{vapidPublicKey}`: the key a web app passes to
    /// `pushManager.subscribe` as `applicationServerKey`. `-32004` when Web Push is not configured.
    public enum WebPushKey: RPCMethod {
        public static let name = "devices.webPushKey"

        public struct Params: Codable, Sendable, Hashable {
            /// The app whose key is asked for (several apps per deployment come with issue 27); unset: the
            /// deployment's one key.
            public var appId: String?
            public init(appId: String? = nil) {
                self.appId = appId
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// The VAPID public key: base64url without padding of the uncompressed P-256 point (65 bytes).
            public var vapidPublicKey: String
            public init(vapidPublicKey: String) {
                self.vapidPublicKey = vapidPublicKey
            }
        }
    }
}
