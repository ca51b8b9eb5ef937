/// How a device's direct-channel event stream is doing (see `SecurePushDevice.notifications(deviceId:onStateChange:)`).
public enum EventStreamState: Sendable {
    /// Opening the stream (first time, or again after a drop).
    case connecting
    /// push-dispatch accepted the stream: notifications flow.
    case connected
    /// The stream dropped or could not be opened (`reason`; `nil` when push-dispatch ended it cleanly, e.g. on
    /// restart); the next attempt starts after `retryIn`.
    case disconnected(reason: (any Error)?, retryIn: Duration)
}
