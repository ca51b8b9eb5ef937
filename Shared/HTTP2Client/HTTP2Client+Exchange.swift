import HTTP2Core
import NIOCore

extension HTTP2Client {
    /// Runs `request` on a stream and lets `consume` read the response; retries once when the request
    /// provably never reached the peer.
    func perform<T: Sendable>(
        _ request: HTTP2Request,
        timeoutCoversBody: Bool,
        _ consume: (HTTP2ClientStream.Head, HTTP2ResponsePartSource) async throws -> T
    ) async throws -> T {
        guard request.path.hasPrefix("/") else {
            throw HTTP2ClientError(.invalidURL, "request path '\(request.path)' must start with '/'")
        }
        let timeout = request.timeout ?? configuration.requestTimeout
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let head = makeRequestHead(request)
        do {
            do {
                return try await attempt(
                    request, head, deadline: deadline, timeout: timeout, timeoutCoversBody, consume)
            } catch let failure as HTTP2RetryableFailure {
                logger.debug(
                    "request did not reach the peer, retrying on a new connection",
                    metadata: ["error": "\(failure.error)"]
                )
                do {
                    return try await attempt(
                        request, head, deadline: deadline, timeout: timeout, timeoutCoversBody, consume)
                } catch let failure as HTTP2RetryableFailure {
                    throw failure.error
                }
            }
        } catch let error as HTTP2CallerError {
            throw error.underlying
        }
    }

    /// One try on the current connection.
    private func attempt<T: Sendable>(
        _ request: HTTP2Request,
        _ head: HTTP2ClientRequestHead,
        deadline: NIODeadline,
        timeout: Duration,
        _ timeoutCoversBody: Bool,
        _ consume: (HTTP2ClientStream.Head, HTTP2ResponsePartSource) async throws -> T
    ) async throws -> T {
        let connection = try await connection(deadline: deadline)
        guard connection.state.reserveStream() else {
            throw HTTP2RetryableFailure(
                error: HTTP2ClientError(.connectionClosed, "the connection closed before the request was sent")
            )
        }
        defer { connection.releaseStream() }

        let stream = connection.core.request(
            head, body: request.body, bodyLimit: timeoutCoversBody ? configuration.maxResponseBytes : nil)
        // The stream's end, however it comes: a response read to its end is left alone; anything else (the body
        // closure returned early, threw, was cancelled) resets the stream.
        defer { stream.cancel(.cancelled) }
        // Runs on the connection's event loop, where the response head is delivered too: a head that came in time
        // ends a head-only timeout even when the reading task has not got to it yet.
        let timer = connection.core.eventLoop.scheduleTask(deadline: deadline) {
            stream.cancel(.timeout, unlessHeadArrived: !timeoutCoversBody)
        }
        defer { timer.cancel() }
        do {
            let responseHead = try await stream.head()
            if !timeoutCoversBody {
                timer.cancel()
            }
            return try await consume(responseHead, HTTP2ResponsePartSource(stream: stream))
        } catch let failure as HTTP2ClientStreamFailure {
            throw classify(failure, connection: connection, timeout: timeout, timeoutCoversBody: timeoutCoversBody)
        }
    }

    /// Turns a failed stream into what the caller sees, deciding whether a retry is safe: only a request the peer
    /// provably did not process (never sent, refused, above a GOAWAY's last stream id) is sent again.
    private func classify(
        _ failure: HTTP2ClientStreamFailure,
        connection: HTTP2Connection,
        timeout: Duration,
        timeoutCoversBody: Bool
    ) -> any Error {
        switch failure {
        case .timeout:
            let awaited = timeoutCoversBody ? "complete response" : "response head"
            return HTTP2ClientError(.timeout, "no \(awaited) within \(timeout)")
        case .cancelled:
            return CancellationError()
        case .headersTooLarge, .bodyTooLarge:
            return HTTP2ClientError(.responseTooLarge, failure.description)
        case .notSent, .refused:
            if isShutdown { return HTTP2ClientError(.shutdown) }
            if !connection.acceptsNewStreams { connection.retire() }
            let code: HTTP2ClientError.Code = connection.state.goAwayLastStreamID == nil ? .connectionClosed : .goAway
            return HTTP2RetryableFailure(error: HTTP2ClientError(code, failure.description))
        case .reset, .connectionLost:
            if isShutdown { return HTTP2ClientError(.shutdown) }
            return HTTP2ClientError(.connectionClosed, failure.description)
        }
    }

    private func makeRequestHead(_ request: HTTP2Request) -> HTTP2ClientRequestHead {
        var headers = request.headers
        // A `host` header names the `:authority` (as HTTP/1 would); HTTP/2 does not send it as a field.
        let authority = headers.first { $0.0.caseInsensitiveEquals("host") }?.1 ?? endpoint.authority
        if let body = request.body, !headers.contains(where: { $0.0.caseInsensitiveEquals("content-length") }) {
            headers.append(("content-length", String(body.readableBytes)))
        }
        return HTTP2ClientRequestHead(
            method: request.method.rawValue, scheme: endpoint.usesTLS ? "https" : "http", authority: authority,
            path: endpoint.basePath + request.path, headers: headers)
    }

    /// Buffers a response body, refusing to hold more than `limit` bytes.
    static func collectResponse(
        head: HTTP2ClientStream.Head,
        from source: HTTP2ResponsePartSource,
        limit: Int
    ) async throws -> HTTP2Response {
        if let announced = head.headers.first(where: { $0.0 == "content-length" }).flatMap({ Int($0.1) }),
            announced > limit
        {
            throw HTTP2ClientError(.responseTooLarge, "\(announced) bytes announced, limit is \(limit)")
        }
        var body = ByteBuffer()
        while let chunk = try await source.nextBodyPart() {
            if body.readableBytes == 0 {
                body = chunk
            } else {
                body.writeImmutableBuffer(chunk)
            }
        }
        return HTTP2Response(status: head.status, headers: head.headers, body: body)
    }
}
