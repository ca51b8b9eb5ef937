/// Why a client stream ended before its response was complete, and whether the peer can have seen the request.
package enum HTTP2ClientStreamFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request never left: the HEADERS frame was not sent (GOAWAY received, connection closed first).
    case notSent(String)
    /// The peer refused the stream (REFUSED_STREAM, or GOAWAY naming a lower last stream id): not processed.
    case refused
    /// The peer reset the stream after the request went out, with this HTTP/2 error code.
    case reset(UInt32)
    /// The connection closed or broke (protocol error) after the request went out.
    case connectionLost(String)
    /// The response header list was larger than the session's limit.
    case headersTooLarge(Int)
    /// The response body was larger than the request's limit.
    case bodyTooLarge(Int)
    /// The caller's deadline passed.
    case timeout
    /// The caller cancelled.
    case cancelled

    /// Whether the peer provably did not process the request, so sending it again cannot run it twice.
    package var requestWasNotProcessed: Bool {
        switch self {
        case .notSent, .refused: true
        default: false
        }
    }

    package var description: String {
        switch self {
        case .notSent(let reason): "request not sent: \(reason)"
        case .refused: "stream refused by the peer"
        case .reset(let code): "stream reset by the peer (HTTP/2 error \(code))"
        case .connectionLost(let reason): reason
        case .headersTooLarge(let limit): "response header fields exceed the limit of \(limit) bytes"
        case .bodyTooLarge(let limit): "response body exceeds the limit of \(limit) bytes"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        }
    }
}
