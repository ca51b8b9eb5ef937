import NIOCore
import NIOHTTP1

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
            if case .head(let head) = part, head.isFinal {
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
