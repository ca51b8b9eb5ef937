import NIOCore
import NIOHTTP1

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

        public mutating func next() async throws -> ByteBuffer? {
            try await source.nextChunk()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: source)
    }
}

/// Wraps the stream's single inbound iterator, which has already yielded the response head.
final class HTTP2ResponsePartSource: @unchecked Sendable {
    // Unchecked: only the one task consuming the response touches the iterator, as documented
    // on HTTP2ResponseBody; NIO's iterator itself rejects concurrent use.
    private var iterator: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    private var isFinished = false
    private let closer: HTTP2StreamCloser

    init(iterator: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator, closer: HTTP2StreamCloser) {
        self.iterator = iterator
        self.closer = closer
    }

    /// The response head, skipping informational (1xx) heads.
    func nextHead() async throws -> HTTPResponseHead {
        while let part = try await iterator.next() {
            if case .head(let head) = part, !(100..<200).contains(head.status.code) || head.status.code == 101 {
                return head
            }
        }
        throw HTTP2StreamFailure.endedEarly
    }

    /// The next body chunk, `nil` at the end of the response; throws what the stream threw, or
    /// ``HTTP2StreamFailure/endedEarly`` when it closed before the end.
    func nextBodyPart() async throws -> ByteBuffer? {
        guard !isFinished else { return nil }
        while let part = try await iterator.next() {
            switch part {
            case .body(let chunk): return chunk
            case .end:
                isFinished = true
                return nil
            case .head: continue
            }
        }
        throw HTTP2StreamFailure.endedEarly
    }

    /// The next body chunk for a streaming consumer, failures already turned into ``HTTP2ClientError``.
    func nextChunk() async throws -> ByteBuffer? {
        do {
            return try await nextBodyPart()
        } catch {
            isFinished = true
            throw failure(error)
        }
    }

    private func failure(_ error: any Error) -> any Error {
        switch closer.closeReason {
        case .cancelled: return CancellationError()
        case .timeout: return HTTP2ClientError(.timeout)
        case nil: return HTTP2ClientError(.connectionClosed, "\(error)")
        }
    }
}

/// Internal failures, classified into ``HTTP2ClientError`` before they leave the client.
enum HTTP2StreamFailure: Error, CustomStringConvertible {
    /// The stream closed before the response was complete.
    case endedEarly

    var description: String { "the stream closed before the response was complete" }
}
