import HTTP2Core
import NIOCore

/// Where an event stream's bytes go: the body of a `GET /devices/{deviceId}/events` response.
protocol EventStreamWriter: Sendable {
    /// Sends `buffer`; returns once the client's flow-control window let it go out, throws when the client is gone.
    func send(_ buffer: ByteBuffer) async throws
    /// Queues `buffer` without waiting (a keepalive from the hub's timer): `completion(true)` once it went out,
    /// `completion(false)` when the client is gone first.
    func post(_ buffer: ByteBuffer, completion: @escaping @Sendable (Bool) -> Void)
    /// Ends the response after what was sent.
    func end()
    /// Abandons the response (the client sees it reset and reconnects).
    func reset()
    /// Runs `callback` once when the response is closed for any reason (ended, reset, or the client gone).
    func onClose(_ callback: @escaping @Sendable () -> Void)
}

extension HTTP2ResponseStream: EventStreamWriter {
    func send(_ buffer: ByteBuffer) async throws { try await write(buffer).get() }

    func post(_ buffer: ByteBuffer, completion: @escaping @Sendable (Bool) -> Void) {
        write(buffer).whenComplete { result in
            if case .success = result { completion(true) } else { completion(false) }
        }
    }

    func end() { finish() }
}
