import NIOCore

extension HTTP2Client {
    /// Checks the current connection with an HTTP/2 PING (RFC 9113 §6.7) and returns the round-trip time.
    ///
    /// A long-lived connection can die silently (a NAT or load balancer forgets it, the peer's host vanishes);
    /// the next request would then wait for its whole timeout. A PING the peer must acknowledge proves the
    /// connection works without sending a request. When no acknowledgement arrives within `timeout`, or the
    /// connection fails meanwhile, the connection is retired — streams still running on it finish, new requests
    /// open a new connection — and the error is thrown.
    ///
    /// - Returns: the round-trip time, or `nil` when there is no open connection to check (the next request
    ///   opens one).
    /// - Throws: ``HTTP2ClientError/timeout`` when the acknowledgement did not arrive in time,
    ///   ``HTTP2ClientError/connectionClosed`` when the connection closed first, or `CancellationError`.
    public func ping(timeout: Duration) async throws -> Duration? {
        guard let connection = pool.withLock({ $0.currentConnection }), connection.acceptsNewStreams else {
            return nil
        }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await connection.core.ping(UInt64.random(in: .min ... .max)).get(
                deadline: NIODeadline.now() + TimeAmount(timeout),
                timeoutError: HTTP2ClientError(.timeout, "no PING acknowledgement within \(timeout)")
            )
        } catch {
            if error is CancellationError { throw error }
            logger.debug("HTTP/2 PING failed, retiring the connection", metadata: ["error": "\(error)"])
            connection.retire()
            if let error = error as? HTTP2ClientError { throw error }
            throw HTTP2ClientError(.connectionClosed, "PING failed: \(error)")
        }
        return clock.now - start
    }
}
