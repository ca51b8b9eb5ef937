import NIOCore

/// Answers one request: a complete response, or a streaming one. Usable from any thread; everything it does happens
/// on the connection's event loop. If the stream was reset or the connection closed, what it sends is dropped.
public struct HTTP2Responder: Sendable {
    /// The connection handler; only touched on its event loop (`NIOLoopBound` checks it).
    private let target: NIOLoopBound<any HTTPResponseTarget>
    private let stream: Int32
    /// Added to every response this responder sends (e.g. CORS headers a router adds for every route).
    private var extraHeaders = HTTP2Headers()

    /// The connection's event loop.
    public var eventLoop: any EventLoop { target.eventLoop }

    init(target: any HTTPResponseTarget, stream: Int32, eventLoop: any EventLoop) {
        self.target = NIOLoopBound(target, eventLoop: eventLoop)
        self.stream = stream
    }

    /// Sends a complete response (once; later calls are ignored).
    public func respond(_ response: HTTP2Response) {
        var response = response
        response.headers.append(contentsOf: extraHeaders)
        onLoop { [response] in $0.respond(stream: $1, with: response) }
    }

    /// Sends a streaming response's status and headers now; the body follows through the returned stream.
    public func startStream(status: Int = 200, headers: HTTP2Headers = [:]) -> HTTP2ResponseStream {
        var headers = headers
        headers.append(contentsOf: extraHeaders)
        onLoop { [headers] in _ = $0.startStreaming(stream: $1, status: status, headers: headers) }
        return HTTP2ResponseStream(responder: self)
    }

    /// This responder, adding `headers` to whatever it sends.
    public func adding(_ headers: HTTP2Headers) -> HTTP2Responder {
        var copy = self
        copy.extraHeaders.append(contentsOf: headers)
        return copy
    }

    /// Runs `callback` once, on the event loop, when the stream closes: answered, reset by the client, or its
    /// connection gone. Use it to release what a pending answer holds.
    public func onClose(_ callback: @escaping @Sendable () -> Void) {
        onLoop { $0.onClose(stream: $1, callback) }
    }

    func write(_ chunk: ByteBuffer) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        onLoop { $0.write(stream: $1, chunk, promise: promise) }
        return promise.futureResult
    }

    func end() { onLoop { $0.end(stream: $1) } }

    func reset() { onLoop { $0.reset(stream: $1) } }

    /// Runs `body` on the event loop: at once when already there (the synchronous fast path), else enqueued.
    private func onLoop(_ body: @escaping @Sendable (any HTTPResponseTarget, Int32) -> Void) {
        let (target, stream) = (self.target, self.stream)
        if target.eventLoop.inEventLoop {
            body(target.value, stream)
        } else {
            target.eventLoop.execute { body(target.value, stream) }
        }
    }
}
