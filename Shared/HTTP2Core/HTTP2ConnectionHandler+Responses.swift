import CNGHTTP2
import NIOCore

/// Fields HTTP/2 forbids (RFC 9113 §8.2.2); a handler written for HTTP/1.1 might set them, so they are dropped.
private let connectionSpecificFields: Set<String> = [
    "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
]

extension HTTP2ConnectionHandler {
    func respond(stream id: Int32, with response: HTTP2Response) {
        guard let stream = streams[id], stream.phase == .handling else { return }  // reset, closed, or answered
        stream.phase = .responding
        let length = response.body.readableBytes
        var contentLength: Int? = length
        if length == 0 && (response.status == 204 || response.status == 304 || response.status < 200) {
            contentLength = nil
        }
        if response.headers["content-length"] != nil { contentLength = nil }
        if length > 0 {
            stream.outbound = response.body  // shares the handler's storage; the provider copies from it
            stream.outboundEnded = true
            queuedOutbound(stream, length)
        }
        submit(id, status: response.status, headers: response.headers, contentLength: contentLength, body: length > 0)
    }

    func startStreaming(stream id: Int32, status: Int, headers: HTTP2Headers) -> Bool {
        guard let stream = streams[id], stream.phase == .handling else { return false }
        stream.phase = .streaming
        shrinkHeaderTableForStreaming()  // the SETTINGS frame goes out with the response headers
        submit(id, status: status, headers: headers, contentLength: nil, body: true)
        return true
    }

    func write(stream id: Int32, _ chunk: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let session, let stream = streams[id] else {
            promise?.fail(HTTP2CoreError.streamClosed)
            return
        }
        guard stream.phase == .streaming, !stream.outboundEnded else {
            promise?.fail(HTTP2CoreError.notStreaming)
            return
        }
        guard chunk.readableBytes > 0 else {
            promise?.succeed()
            return
        }
        guard stream.outbound.readableBytes + chunk.readableBytes <= limits.maxConnectionBufferBytes else {
            // The client has left this much unread: it gets no more, and the stream ends.
            promise?.fail(HTTP2CoreError.clientNotReading)
            releaseOutbound(stream)
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
            flushUnlessReading()
            return
        }
        queuedOutbound(stream, chunk.readableBytes)
        if stream.outbound.readableBytes == 0 {
            stream.outbound = chunk
        } else {
            stream.outbound.writeImmutableBuffer(chunk)
        }
        stream.bytesQueued += chunk.readableBytes
        if let promise { stream.writePromises.append((stream.bytesQueued, promise)) }
        _ = nghttp2_session_resume_data(session, id)  // fails harmlessly when the provider is not deferred
        flushUnlessReading()
    }

    func end(stream id: Int32) {
        guard let session, let stream = streams[id], stream.phase == .streaming, !stream.outboundEnded else { return }
        stream.outboundEnded = true
        _ = nghttp2_session_resume_data(session, id)
        flushUnlessReading()
    }

    func reset(stream id: Int32) {
        guard let session, streams[id] != nil else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        flushUnlessReading()
    }

    func onClose(stream id: Int32, _ callback: @escaping @Sendable () -> Void) {
        if let stream = streams[id] {
            stream.closeCallbacks.append(callback)
        } else {
            context?.eventLoop.execute(callback)  // already closed
        }
    }

    /// Submits the response headers, with a data provider reading `streams[id].outbound` when `body` is true.
    private func submit(_ id: Int32, status: Int, headers: HTTP2Headers, contentLength: Int?, body: Bool) {
        guard let session else { return }
        var fields: [(String, String)] = [(":status", String(status))]
        for field in headers.fields where !connectionSpecificFields.contains(field.name) {
            fields.append((field.name, field.value))
        }
        if let contentLength { fields.append(("content-length", String(contentLength))) }
        // The provider names no source: the read callback finds the stream's state by id in `streams`, which holds
        // it until nghttp2 reports the stream closed, after its last read.
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBody)
        let result = Self.withNameValues(fields) { nameValues, count in
            body
                ? nghttp2_submit_response(session, id, nameValues, count, &provider)
                : nghttp2_submit_response(session, id, nameValues, count, nil)
        }
        if result != 0 {
            logger.debug("HTTP/2 response not submitted", metadata: ["http2.error": "\(Self.errorText(result))"])
            _ = nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
        flushUnlessReading()
    }

    /// Calls `body` with `nghttp2_nv`s pointing into one byte array that lives for the duration of the call
    /// (nghttp2 copies names and values when a response is submitted).
    static func withNameValues<Result>(
        _ fields: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> Result
    ) -> Result {
        var bytes: [UInt8] = []
        var offsets: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
        offsets.reserveCapacity(fields.count)
        for (name, value) in fields {
            let nameStart = bytes.count
            bytes.append(contentsOf: name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            offsets.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
        }
        bytes.append(0)  // never empty, so the base address is never nil
        return bytes.withUnsafeMutableBufferPointer { storage in
            let base = storage.baseAddress!
            let nameValues = offsets.map {
                nghttp2_nv(
                    name: base + $0.name, value: base + $0.value, namelen: $0.nameLength, valuelen: $0.valueLength,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nameValues.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}

/// nghttp2 asks for up to `length` bytes of a stream's response body: copied from the stream's `outbound` buffer
/// into nghttp2's `buffer` (valid only during this call). Empty and not ended: deferred until `write` or `end`
/// resumes it.
private let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    let handler = HTTP2ConnectionHandler.handler(userData)
    guard let buffer, let flags, let stream = handler.streams[streamID] else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)  // resets just this stream
    }
    let count = stream.outbound.moveReadableBytes(into: buffer, upTo: length)
    if count > 0 {
        handler.sentOutbound(stream, count)
        stream.bytesSent += count
        while let first = stream.writePromises.first, first.upTo <= stream.bytesSent {
            handler.promisesToSucceed.append(first.promise)
            stream.writePromises.removeFirst()
        }
    }
    if stream.outbound.readableBytes == 0 {
        stream.outbound = ByteBuffer()  // an idle event stream keeps no buffer
        if stream.outboundEnded {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        } else if count == 0 {
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
    }
    return count
}
