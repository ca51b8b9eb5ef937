import NIOCore

/// Where a responder's calls land: a connection handler (HTTP/2 or HTTP/1.1), always called on its event loop.
/// Every method is a no-op for a stream that no longer exists (reset, or connection closed).
protocol HTTPResponseTarget: AnyObject {
    /// Submits a complete response to `stream`, if it is still waiting for one.
    func respond(stream: Int32, with response: HTTP2Response)
    /// Sends a streaming response's headers; its body follows through `write` and `end`.
    func startStreaming(stream: Int32, status: Int, headers: HTTP2Headers) -> Bool
    /// Queues a chunk of a streaming response; `promise` succeeds once the chunk is handed to the transport.
    func write(stream: Int32, _ chunk: ByteBuffer, promise: EventLoopPromise<Void>?)
    /// Ends a streaming response after the chunks already written.
    func end(stream: Int32)
    /// Resets the stream (HTTP/2 RST_STREAM CANCEL; HTTP/1.1 closes the connection).
    func reset(stream: Int32)
    /// Runs `callback` (once, on the event loop) when the stream closes for any reason.
    func onClose(stream: Int32, _ callback: @escaping @Sendable () -> Void)
}
