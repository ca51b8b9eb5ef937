/// Errors the device SDK raises itself (server errors arrive as `RPCError`).
public struct SecurePushClientError: Error, CustomStringConvertible, Sendable, Hashable {
    private enum Code: Hashable, Sendable {
        case notSignedIn
        case streamRefused(Int)
        case shutDown
        case unreadableDeviceKey(String)
        case noPayload
        case noPendingDevice
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A call needed a session, and there is none: sign in first.
    public static let notSignedIn = SecurePushClientError(.notSignedIn)
    /// The client was shut down.
    public static let shutDown = SecurePushClientError(.shutDown)
    /// The device key file exists but holds no key (or cannot be created).
    public static func unreadableDeviceKey(path: String) -> SecurePushClientError {
        SecurePushClientError(.unreadableDeviceKey(path))
    }
    /// The notification is sealed to this user's devices, and this client has no device key to open it with.
    public static let noPayload = SecurePushClientError(.noPayload)
    /// A device-verification challenge arrived, and this client registered no pending device to answer it for.
    public static let noPendingDevice = SecurePushClientError(.noPendingDevice)
    /// push-dispatch refused the event stream with this HTTP status (403: not your device; 404: no such device).
    public static func streamRefused(status: Int) -> SecurePushClientError {
        SecurePushClientError(.streamRefused(status))
    }

    public var description: String {
        switch code {
        case .notSignedIn: "not signed in"
        case .shutDown: "the client was shut down"
        case .streamRefused(let status): "the event stream was refused with HTTP \(status)"
        case .unreadableDeviceKey(let path): "no usable device key in \(path)"
        case .noPayload: "the notification is sealed to a device key this client does not hold"
        case .noPendingDevice:
            "a device-verification challenge arrived, but this client has no pending device registration to answer it for"
        }
    }
}
