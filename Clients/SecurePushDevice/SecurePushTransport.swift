import Foundation
import JSONRPC

/// One of the three services a device talks to.
public enum SecurePushService: String, Sendable, CaseIterable {
    case auth
    case store = "notification-store"
    case dispatch = "push-dispatch"
}

/// How the device SDK reaches the services: JSON-RPC calls (one request, one response) and push-dispatch's direct
/// channel (an event stream). ``SecurePushDevice`` holds all its logic above this protocol, so the same code runs on
/// our HTTP/2 client (`SecurePushClient`: Linux servers, the CLI, tests) and on Foundation's `URLSession` (Apple
/// platforms).
public protocol SecurePushTransport: Sendable {
    /// The JSON-RPC transport to `service`'s `POST /rpc`, sending `extraHeaders` with every call (a device proof).
    /// Its failures to reach the service are `RPCError`s with code `-32050` naming the service.
    func rpc(_ service: SecurePushService, extraHeaders: [(String, String)]) -> any RPCTransport

    /// Opens `GET path` on push-dispatch with `headers` and reads the answer until the server ends it or the calling
    /// task is cancelled. For a 200 answer, `opened` is called once it arrives and `received` with each piece of its
    /// body, in order; when `received` throws, the connection is closed and this throws that error. Returns the
    /// answer's status; throws when the connection fails.
    func eventStream(
        path: String, headers: [(String, String)], opened: @Sendable () -> Void,
        received: @Sendable (Data) throws -> Void
    ) async throws -> Int

    /// Closes the connections.
    func shutdown() async
}
