/// A request that never reached the peer: safe to send again on a new connection.
struct HTTP2RetryableFailure: Error {
    var error: HTTP2ClientError
}

/// An error thrown by the caller's own closure: passed through untouched.
struct HTTP2CallerError: Error {
    var underlying: any Error
}

/// Internal failures, classified into ``HTTP2ClientError`` before they leave the client.
enum HTTP2StreamFailure: Error, CustomStringConvertible {
    /// The stream closed before the response was complete.
    case endedEarly
    /// The request head was held back because the peer had sent GOAWAY.
    case goAwayBeforeSend

    var description: String {
        switch self {
        case .endedEarly: "the stream closed before the response was complete"
        case .goAwayBeforeSend: "the peer sent GOAWAY before the request went out"
        }
    }
}
