/// Why a streaming write or response did not reach the client.
public struct HTTP2CoreError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case streamClosed
        case notStreaming
        case clientNotReading
    }

    private let code: Code

    /// The stream was reset or its connection closed before the data was sent.
    public static let streamClosed = HTTP2CoreError(code: .streamClosed)
    /// The stream has no streaming response (none started, or already ended).
    public static let notStreaming = HTTP2CoreError(code: .notStreaming)
    /// The client left ``HTTP2Limits/maxConnectionBufferBytes`` of the stream's response unread: the stream was reset.
    public static let clientNotReading = HTTP2CoreError(code: .clientNotReading)

    public var description: String {
        switch code {
        case .streamClosed: "the stream was closed before the data was sent"
        case .notStreaming: "the stream has no open streaming response"
        case .clientNotReading: "the client left too much of the response unread; the stream was reset"
        }
    }
}
