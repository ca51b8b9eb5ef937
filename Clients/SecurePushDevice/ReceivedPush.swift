/// What a platform push (the data of an APNs, FCM or WNS message) held, once ``SecurePushDevice/receive(push:)``
/// handled it.
public enum ReceivedPush: Sendable, Hashable {
    /// A secure notification's id (and the send's trace context, when it was traced): fetch it with
    /// ``SecurePushDevice/fetch(_:traceparent:)``.
    case notification(id: String, traceparent: String?)
    /// A device-verification challenge, answered: the device is now the signed-in user's, under this id.
    case verified(deviceId: String)
    /// Not a SecurePush message (another library's push): nothing was done.
    case other
}
