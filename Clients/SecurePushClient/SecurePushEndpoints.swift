/// Where a device finds the three services.
public struct SecurePushEndpoints: Codable, Sendable, Hashable {
    /// Base URL of auth, e.g. `http://127.0.0.1:8081` or `https://auth.example.com`.
    public var auth: String
    /// Base URL of notification-store.
    public var store: String
    /// Base URL of push-dispatch.
    public var dispatch: String
    /// A PEM CA file to trust for `https` endpoints (a private CA); `nil` uses the system trust store.
    public var caFile: String?

    public init(auth: String, store: String, dispatch: String, caFile: String? = nil) {
        self.auth = auth
        self.store = store
        self.dispatch = dispatch
        self.caFile = caFile
    }

    /// The services' default local ports over cleartext HTTP/2.
    public static let local = SecurePushEndpoints(
        auth: "http://127.0.0.1:8081",
        store: "http://127.0.0.1:8082",
        dispatch: "http://127.0.0.1:8083"
    )
}
