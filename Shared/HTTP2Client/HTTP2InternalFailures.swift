/// A request that never reached the peer: safe to send again on a new connection.
struct HTTP2RetryableFailure: Error {
    var error: HTTP2ClientError
}

/// An error thrown by the caller's own closure: passed through untouched.
struct HTTP2CallerError: Error {
    var underlying: any Error
}
