import NIOCore

/// The body of a streaming response (e.g. an event stream): chunks written as they come, then an end or a reset.
/// Usable from any thread. Each write's future succeeds once the peer's flow-control window let the chunk go out,
/// so a producer that waits for it never buffers more than the client accepts.
public struct HTTP2ResponseStream: Sendable {
    let responder: HTTP2Responder

    /// Queues `chunk`; the future fails with ``HTTP2CoreError/streamClosed`` if the stream closes before it is sent.
    @discardableResult
    public func write(_ chunk: ByteBuffer) -> EventLoopFuture<Void> { responder.write(chunk) }

    /// Ends the response after the chunks already written (END_STREAM).
    public func finish() { responder.end() }

    /// Abandons the response: the client sees the stream reset (RST_STREAM CANCEL).
    public func reset() { responder.reset() }

    /// Runs `callback` once, on the event loop, when the stream closes for any reason.
    public func onClose(_ callback: @escaping @Sendable () -> Void) { responder.onClose(callback) }
}
