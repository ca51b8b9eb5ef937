import HTTP2Core
import NIOCore

/// The body of a response after its head: the stream's chunks, for the client's own reading and for a caller's
/// ``HTTP2ResponseBody``.
struct HTTP2ResponsePartSource: Sendable {
    let stream: HTTP2ClientStream

    /// The next body chunk, `nil` at the end of the response; throws the stream's failure for the client to classify.
    func nextBodyPart() async throws(HTTP2ClientStreamFailure) -> ByteBuffer? {
        try await stream.nextChunk()
    }

    /// The next body chunk for a streaming consumer, failures already turned into ``HTTP2ClientError``.
    func nextChunk() async throws -> ByteBuffer? {
        do {
            return try await stream.nextChunk()
        } catch {
            switch error {
            case .cancelled: throw CancellationError()
            case .timeout: throw HTTP2ClientError(.timeout)
            case .headersTooLarge, .bodyTooLarge: throw HTTP2ClientError(.responseTooLarge, error.description)
            default: throw HTTP2ClientError(.connectionClosed, error.description)
            }
        }
    }
}
