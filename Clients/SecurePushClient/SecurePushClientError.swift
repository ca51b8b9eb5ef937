/// Errors the device SDK raises itself (server errors arrive as `RPCError`).
public struct SecurePushClientError: Error, CustomStringConvertible, Sendable, Hashable {
    private enum Code: Hashable, Sendable {
        case notSignedIn
        case streamRefused(Int)
        case shutDown
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A call needed a session, and there is none: sign in first.
    public static let notSignedIn = SecurePushClientError(.notSignedIn)
    /// The client was shut down.
    public static let shutDown = SecurePushClientError(.shutDown)
    /// push-dispatch refused the event stream with this HTTP status (403: not your device; 404: no such device).
    public static func streamRefused(status: Int) -> SecurePushClientError {
        SecurePushClientError(.streamRefused(status))
    }

    public var description: String {
        switch code {
        case .notSignedIn: "not signed in"
        case .shutDown: "the client was shut down"
        case .streamRefused(let status): "the event stream was refused with HTTP \(status)"
        }
    }
}
