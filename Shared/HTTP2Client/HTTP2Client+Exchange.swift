import NIOCore
import NIOHTTP1
import NIOHTTP2

extension HTTP2Client {
    /// Runs `request` on a stream and lets `consume` read the response; retries once when the request
    /// provably never reached the peer.
    func perform<T: Sendable>(
        _ request: HTTP2Request,
        timeoutCoversBody: Bool,
        _ consume: (HTTPResponseHead, HTTP2ResponsePartSource) async throws -> T
    ) async throws -> T {
        guard request.path.hasPrefix("/") else {
            throw HTTP2ClientError(.invalidURL, "request path '\(request.path)' must start with '/'")
        }
        let timeout = request.timeout ?? configuration.requestTimeout
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        do {
            do {
                return try await attempt(request, deadline: deadline, timeout: timeout, timeoutCoversBody, consume)
            } catch let failure as HTTP2RetryableFailure {
                logger.debug(
                    "request did not reach the peer, retrying on a new connection",
                    metadata: ["error": "\(failure.error)"]
                )
                do {
                    return try await attempt(request, deadline: deadline, timeout: timeout, timeoutCoversBody, consume)
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
        deadline: NIODeadline,
        timeout: Duration,
        _ timeoutCoversBody: Bool,
        _ consume: (HTTPResponseHead, HTTP2ResponsePartSource) async throws -> T
    ) async throws -> T {
        let connection = try await connection(deadline: deadline)
        guard connection.state.reserveStream() else {
            throw HTTP2RetryableFailure(
                error: HTTP2ClientError(.connectionClosed, "the connection closed before the request was sent")
            )
        }
        defer { connection.releaseStream() }

        let progress = HTTP2StreamProgress()
        let stream: HTTP2ClientStreamChannel
        do {
            stream = try await connection.openStream(usesTLS: endpoint.usesTLS, progress: progress)
        } catch {
            if isShutdown { throw HTTP2ClientError(.shutdown) }
            connection.retire()
            throw HTTP2RetryableFailure(error: HTTP2ClientError(.connectionClosed, "could not open a stream: \(error)"))
        }

        let closer = HTTP2StreamCloser(channel: stream.channel)
        let timer = stream.channel.eventLoop.scheduleTask(deadline: deadline) {
            // Runs on the stream's event loop, which also records the response head: a head that came in time
            // ends a head-only timeout even when the reading task has not got to it yet.
            if timeoutCoversBody || !progress.hasResponseHead {
                closer.close(.timeout)
            }
        }
        defer { timer.cancel() }
        let head = makeRequestHead(request)
        do {
            return try await withTaskCancellationHandler {
                try await stream.executeThenClose { inbound, outbound in
                    var parts: [HTTPClientRequestPart] = [.head(head)]
                    if let body = request.body, body.readableBytes > 0 {
                        parts.append(.body(.byteBuffer(body)))
                    }
                    parts.append(.end(nil))
                    try await outbound.write(contentsOf: parts)

                    let source = HTTP2ResponsePartSource(iterator: inbound.makeAsyncIterator(), closer: closer)
                    let responseHead = try await source.nextHead()
                    if !timeoutCoversBody {
                        timer.cancel()
                    }
                    return try await consume(responseHead, source)
                }
            } onCancel: {
                closer.close(.cancelled)
            }
        } catch {
            throw classify(
                error,
                closer: closer,
                progress: progress,
                connection: connection,
                timeout: timeout,
                timeoutCoversBody: timeoutCoversBody
            )
        }
    }

    /// Turns a failed exchange into what the caller sees, deciding whether a retry is safe.
    private func classify(
        _ error: any Error,
        closer: HTTP2StreamCloser,
        progress: HTTP2StreamProgress,
        connection: HTTP2Connection,
        timeout: Duration,
        timeoutCoversBody: Bool
    ) -> any Error {
        if error is HTTP2CallerError { return error }
        switch closer.closeReason {
        case .timeout:
            let awaited = timeoutCoversBody ? "complete response" : "response head"
            return HTTP2ClientError(.timeout, "no \(awaited) within \(timeout)")
        case .cancelled: return CancellationError()
        case nil: break
        }
        if let error = error as? HTTP2ClientError { return error }
        if error is CancellationError { return error }
        if isShutdown { return HTTP2ClientError(.shutdown) }

        let refused = (error as? NIOHTTP2Errors.StreamClosed)?.errorCode == .refusedStream
        let goAwayLastStreamID = connection.state.goAwayLastStreamID
        let phase = progress.current
        switch phase {
        case .idle, .headFailed:
            // The peer never saw this request.
            if !connection.acceptsNewStreams {
                connection.retire()
                let code: HTTP2ClientError.Code = goAwayLastStreamID == nil ? .connectionClosed : .goAway
                var reason = "\(error)"
                if case .headFailed(let headFailure) = phase { reason = headFailure }
                return HTTP2RetryableFailure(error: HTTP2ClientError(code, "request not sent: \(reason)"))
            }
            if refused {
                return HTTP2RetryableFailure(error: HTTP2ClientError(.connectionClosed, "stream refused by the peer"))
            }
        case .headWritten(let streamID):
            // After GOAWAY, streams above its last stream id were not processed by the peer (RFC 9113 §6.8).
            if let streamID, let goAwayLastStreamID, streamID > goAwayLastStreamID {
                connection.retire()
                return HTTP2RetryableFailure(
                    error: HTTP2ClientError(.goAway, "stream \(streamID) not processed by the peer")
                )
            }
            if refused {
                return HTTP2RetryableFailure(error: HTTP2ClientError(.connectionClosed, "stream refused by the peer"))
            }
        case .writingHead:
            break
        }
        return HTTP2ClientError(.connectionClosed, "\(error)")
    }

    private func makeRequestHead(_ request: HTTP2Request) -> HTTPRequestHead {
        var headers = HTTPHeaders(request.headers)
        if !headers.contains(name: "host") {
            // The HTTP/2 codec turns `host` into `:authority`.
            headers.add(name: "host", value: endpoint.authority)
        }
        if let body = request.body, !headers.contains(name: "content-length") {
            headers.add(name: "content-length", value: String(body.readableBytes))
        }
        return HTTPRequestHead(
            version: .http1_1,
            method: request.method,
            uri: endpoint.basePath + request.path,
            headers: headers
        )
    }

    /// Buffers a response body, refusing to hold more than `limit` bytes.
    static func collectResponse(
        head: HTTPResponseHead,
        from source: HTTP2ResponsePartSource,
        limit: Int
    ) async throws -> HTTP2Response {
        if let announced = head.headers.first(name: "content-length").flatMap(Int.init), announced > limit {
            throw HTTP2ClientError(.responseTooLarge, "\(announced) bytes announced, limit is \(limit)")
        }
        var body = ByteBuffer()
        while let chunk = try await source.nextBodyPart() {
            guard chunk.readableBytes <= limit - body.readableBytes else {
                throw HTTP2ClientError(.responseTooLarge, "more than \(limit) bytes")
            }
            if body.readableBytes == 0 {
                body = chunk
            } else {
                body.writeImmutableBuffer(chunk)
            }
        }
        return HTTP2Response(
            status: Int(head.status.code),
            headers: head.headers.map { ($0.name, $0.value) },
            body: body
        )
    }
}
