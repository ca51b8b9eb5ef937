import NIOCore

/// The body of an ``HTTP2StreamingResponse``: chunks in the order the peer sent them.
///
/// It is one stream of bytes, not a replayable collection: iterate it from one task at a time; a second
/// iterator continues where the first stopped. Ends when the peer finishes the response; throws
/// ``HTTP2ClientError/connectionClosed`` when the stream breaks off, `CancellationError` when cancelled.
public struct HTTP2ResponseBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    public typealias Failure = any Error

    let source: HTTP2ResponsePartSource

    /// Delivers the chunks one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: HTTP2ResponsePartSource

        /// The next chunk, or `nil` once the peer finished the response.
        public mutating func next() async throws -> ByteBuffer? {
            try await source.nextChunk()
        }
    }

    /// An iterator continuing where any earlier one stopped.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: source)
    }
}
