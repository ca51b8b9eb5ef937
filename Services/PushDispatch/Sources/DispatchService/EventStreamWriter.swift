import HTTP2Core
import NIOCore

/// Where an event stream's bytes go: the body of a `GET /devices/{deviceId}/events` response.
protocol EventStreamWriter: Sendable {
    /// Sends `buffer`; returns once the client's flow-control window let it go out, throws when the client is gone.
    func send(_ buffer: ByteBuffer) async throws
    /// Ends the response after what was sent.
    func end()
    /// Runs `callback` once when the response is closed for any reason (ended, reset, or the client gone).
    func onClose(_ callback: @escaping @Sendable () -> Void)
}

extension HTTP2ResponseStream: EventStreamWriter {
    func send(_ buffer: ByteBuffer) async throws { try await write(buffer).get() }

    func end() { finish() }
}
