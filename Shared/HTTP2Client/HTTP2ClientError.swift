/// Why an ``HTTP2Client`` call failed.
///
/// A struct wrapping a private code, like `HTTPClientError`: new kinds of failure never break callers.
/// Equality compares only the kind (`error == .timeout`); ``description`` adds the details.
public struct HTTP2ClientError: Error, CustomStringConvertible, Sendable, Hashable {
    enum Code: Hashable, Sendable {
        case connectFailed
        case timeout
        case connectionClosed
        case goAway
        case tlsFailure
        case responseTooLarge
        case shutdown
        case invalidURL
    }

    let code: Code
    /// What happened underneath, for logs; not part of equality.
    let detail: String?

    init(_ code: Code, _ detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The TCP connection could not be opened (refused, unreachable, connect timeout).
    public static let connectFailed = HTTP2ClientError(.connectFailed)
    /// The request did not complete within its timeout.
    public static let timeout = HTTP2ClientError(.timeout)
    /// The connection or stream closed after the request was sent and before the response was complete.
    public static let connectionClosed = HTTP2ClientError(.connectionClosed)
    /// The peer is shutting down (GOAWAY) and did not process the request, even after one retry.
    public static let goAway = HTTP2ClientError(.goAway)
    /// The TLS handshake failed (untrusted or mismatching certificate) or ALPN did not select `h2`.
    public static let tlsFailure = HTTP2ClientError(.tlsFailure)
    /// The response body is larger than ``HTTP2ClientConfiguration/maxResponseBytes``.
    public static let responseTooLarge = HTTP2ClientError(.responseTooLarge)
    /// The client was shut down.
    public static let shutdown = HTTP2ClientError(.shutdown)
    /// The base URL or request path is malformed.
    public static let invalidURL = HTTP2ClientError(.invalidURL)

    public static func == (lhs: HTTP2ClientError, rhs: HTTP2ClientError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    public var description: String {
        let summary: String
        switch code {
        case .connectFailed: summary = "connect failed"
        case .timeout: summary = "request timed out"
        case .connectionClosed: summary = "connection closed before the response was complete"
        case .goAway: summary = "peer is going away (GOAWAY) and did not process the request"
        case .tlsFailure: summary = "TLS failure"
        case .responseTooLarge: summary = "response too large"
        case .shutdown: summary = "HTTP/2 client is shut down"
        case .invalidURL: summary = "invalid URL"
        }
        guard let detail else { return summary }
        return "\(summary): \(detail)"
    }
}
