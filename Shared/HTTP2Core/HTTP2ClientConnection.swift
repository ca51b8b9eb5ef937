import Logging
import NIOCore

/// One HTTP/2 client connection on an nghttp2 session, usable from any task: requests become streams, multiplexed
/// up to the peer's SETTINGS_MAX_CONCURRENT_STREAMS (nghttp2 holds back the HEADERS of the rest until a stream
/// closes). Connection-level policy (which connection to use, retries, timeouts) is the caller's.
package final class HTTP2ClientConnection: Sendable {
    /// The TCP (and TLS) channel.
    package let channel: any Channel
    private let session: NIOLoopBound<HTTP2ClientSession>

    init(channel: any Channel, session: NIOLoopBound<HTTP2ClientSession>) {
        self.channel = channel
        self.session = session
    }

    /// The connection's event loop, where its session runs.
    package var eventLoop: any EventLoop { channel.eventLoop }

    /// Sends a request; read its response from the returned stream. `bodyLimit` makes it a buffered response
    /// (bytes are acknowledged as they arrive, more than the limit fails the stream); `nil` streams it, paced by
    /// the reader.
    package func request(_ head: HTTP2ClientRequestHead, body: ByteBuffer?, bodyLimit: Int?) -> HTTP2ClientStream {
        let stream = HTTP2ClientStream(connection: self, bodyLimit: bodyLimit)
        onEventLoop { session in session.start(head, body: body, consumer: stream) }
        return stream
    }

    /// Sends a PING with `data`; the future succeeds with its acknowledgement.
    package func ping(_ data: UInt64) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        onEventLoop { session in session.ping(data, promise: promise) }
        return promise.futureResult
    }

    /// Closes the connection; open streams fail with what the session knows about them.
    package func close() {
        channel.close(promise: nil)
    }

    func consume(_ stream: HTTP2ClientStream, bytes: Int) {
        onEventLoop { session in session.consume(stream, bytes: bytes) }
    }

    func reset(_ stream: HTTP2ClientStream) {
        onEventLoop { session in session.reset(stream) }
    }

    private func onEventLoop(_ body: @escaping @Sendable (HTTP2ClientSession) -> Void) {
        let session = self.session
        if eventLoop.inEventLoop {
            body(session.value)
        } else {
            eventLoop.execute { body(session.value) }
        }
    }
}
