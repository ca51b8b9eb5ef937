/// What a handler does with a request: answer now on the event loop, answer after suspending, or answer through its
/// ``HTTP2Responder`` later (e.g. a streaming response).
public enum HTTP2Reply: Sendable {
    /// The response, ready now: submitted on the event loop with no task and no thread hop (the fast path).
    case response(HTTP2Response)
    /// Work that suspends: it runs in a task and its response is submitted on the connection's event loop. The task
    /// is cancelled if the stream is reset or the connection closes first, and its response is then dropped.
    case async(@Sendable () async -> HTTP2Response)
    /// The handler keeps the ``HTTP2Responder`` and answers through it later, from any thread (or already did).
    case deferred
}

/// Turns a complete request into a reply. Called on the connection's event loop: it must not block.
public typealias HTTP2RequestHandler = @Sendable (HTTP2Request, HTTP2Responder) -> HTTP2Reply
