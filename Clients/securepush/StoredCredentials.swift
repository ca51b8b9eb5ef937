import SecurePushClient

/// What `securepush login` keeps (mode 0600): the endpoints, the session and the device registered by `listen`.
struct StoredCredentials: Codable {
    var username: String
    var endpoints: SecurePushEndpoints
    var session: DeviceSession
    var deviceId: String?
}

/// A backend client's id and secret, as `securepush up` writes it for local development (mode 0600).
struct BackendClientFile: Codable {
    var clientId: String
    var clientSecret: String
}
