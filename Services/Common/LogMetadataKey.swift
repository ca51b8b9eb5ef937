/// The log metadata keys for what every service talks about: one key per concept, the same in auth,
/// notification-store and push-dispatch, so one query finds a notification, device, user or client in every log
/// (docs/operations.md, "Logs"). Keys for one component's own details keep that component's prefix
/// (`apns.status`, `auth.limit`, …).
public enum LogMetadataKey {
    /// A notification id.
    public static let notificationID = "notification.id"
    /// A device id.
    public static let deviceID = "device.id"
    /// A device's platform (`direct`, `apns`, …).
    public static let platform = "push.platform"
    /// A user id.
    public static let userID = "user.id"
    /// The user a device belonged to before it moved.
    public static let previousUserID = "user.previous_id"
    /// A service client's id (an app backend, push-dispatch).
    public static let clientID = "client.id"
    /// The caller's network address, as ``ClientAddressResolver`` determined it.
    public static let clientAddress = "client.address"
    /// A sign-in session (`sid`).
    public static let sessionID = "session.id"
    /// The JSON-RPC method a line concerns.
    public static let rpcMethod = "rpc.method"
    /// The name of a ``SecurityEvent``: alert on it.
    public static let securityEvent = "security.event"
}
