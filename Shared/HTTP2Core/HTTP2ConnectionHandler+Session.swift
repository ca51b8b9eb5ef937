import CNGHTTP2
import NIOCore

extension HTTP2ConnectionHandler {
    /// nghttp2 returned an error code where a session was being created.
    struct SessionError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { HTTP2ConnectionHandler.errorText(code) }
    }

    /// A server session with our callbacks and limits, its SETTINGS already queued. `userData` must be the handler,
    /// alive for as long as the session (see the type's comment).
    static func makeSession(userData: UnsafeMutableRawPointer, limits: HTTP2Limits) throws -> OpaquePointer {
        var callbacks: OpaquePointer?
        try NGHTTP2Session.check(nghttp2_session_callbacks_new(&callbacks))
        defer { nghttp2_session_callbacks_del(callbacks) }  // the session keeps its own copy
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSend)

        var options: OpaquePointer?
        try NGHTTP2Session.check(nghttp2_option_new(&options))
        defer { nghttp2_option_del(options) }  // copied into the session too
        nghttp2_option_set_stream_reset_rate_limit(
            options, UInt64(limits.streamResetBurst), UInt64(limits.streamResetsPerSecond))
        // Flow-control credit is returned only for bytes the connection's budget accepts (receivedData).
        nghttp2_option_set_no_auto_window_update(options, 1)

        var session: OpaquePointer?
        try NGHTTP2Session.check(nghttp2_session_server_new2(&session, callbacks, userData, options))
        guard let session else { throw SessionError(code: NGHTTP2_ERR_NOMEM.rawValue) }
        let settings = [
            NGHTTP2Session.setting(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits.maxConcurrentStreams),
            NGHTTP2Session.setting(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits.maxHeaderListBytes),
            NGHTTP2Session.setting(NGHTTP2_SETTINGS_ENABLE_PUSH, 0),
        ]
        let submitted = settings.withUnsafeBufferPointer {
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress, $0.count)
        }
        guard submitted == 0 else {
            nghttp2_session_del(session)
            throw SessionError(code: submitted)
        }
        return session
    }

    /// Advertises ``HTTP2Limits/streamingHeaderTableBytes`` once, when the connection first holds a streaming
    /// response. nghttp2 applies it to its decoder when the client acknowledges the SETTINGS frame, evicting the
    /// entries that no longer fit; until then the client may still use what it indexed.
    func shrinkHeaderTableForStreaming() {
        let bytes = limits.streamingHeaderTableBytes
        guard !headerTableShrunk, let session, bytes < Self.defaultHeaderTableBytes else { return }
        headerTableShrunk = true
        var entry = NGHTTP2Session.setting(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, bytes)
        let result = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
        if result != 0 {
            logger.debug("HTTP/2 SETTINGS not submitted", metadata: ["http2.error": "\(Self.errorText(result))"])
        }
    }

    /// A GOAWAY went out with `errorCode`. A header compression error on a connection whose table was shrunk is most
    /// likely a client that ignored the smaller size: counted, and the operator is told how to keep the RFC's table.
    func sentGoAway(errorCode: UInt32) {
        guard errorCode == NGHTTP2_COMPRESSION_ERROR.rawValue, headerTableShrunk,
            configuration.load.recordHeaderTableFailure()
        else { return }
        logger.notice(
            "http2.header_table.not_applied",
            metadata: [
                "http2.header_table_bytes": "\(limits.streamingHeaderTableBytes)",
                "http2.header_table_failures": "\(configuration.load.headerTableFailureCount)",
                "client.address": "\(remoteAddress?.ipAddress ?? "?")",
                "http2.hint":
                    "a client failed to apply the smaller SETTINGS_HEADER_TABLE_SIZE sent with its event stream (COMPRESSION_ERROR); SECUREPUSH_STREAMING_HEADER_TABLE_BYTES=4096 keeps the RFC's table",
            ])
    }

    /// SETTINGS_HEADER_TABLE_SIZE's initial value (RFC 9113 §6.5.2), which our first SETTINGS frame leaves as is.
    static let defaultHeaderTableBytes = 4096

    /// The handler behind a callback's `user_data` (see the type's comment for why it is alive).
    static func handler(_ userData: UnsafeMutableRawPointer?) -> HTTP2ConnectionHandler {
        Unmanaged<HTTP2ConnectionHandler>.fromOpaque(userData!).takeUnretainedValue()
    }
}

// MARK: nghttp2 callbacks. Each returns 0 (go on) or an nghttp2 error code; none calls back into nghttp2's
// receive or send functions, and none runs user code that could close the connection.

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame, NGHTTP2Session.isHeaders(frame),
        frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
    else { return 0 }
    HTTP2ConnectionHandler.handler(userData).streamOpened(frame.pointee.hd.stream_id)
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, let name, let value else { return 0 }
    let handler = HTTP2ConnectionHandler.handler(userData)
    guard let stream = handler.streams[frame.pointee.hd.stream_id], stream.phase == .receiving else { return 0 }
    // Counted as SETTINGS_MAX_HEADER_LIST_SIZE counts; past the limit nothing more is kept (an HPACK bomb's
    // thousands of references to one large table entry cost a counter, not memory), and the stream gets 431.
    stream.headerListBytes += nameLength + valueLength + 32
    if stream.headerListBytes > handler.limits.maxHeaderListBytes {
        stream.headersTooLarge = true
        stream.headers = HTTP2Headers()
        return 0
    }
    // Copied into Swift strings here: nghttp2's buffers are only valid during this call.
    let fieldName = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let fieldValue = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    switch fieldName {
    case ":method": stream.method = fieldValue
    case ":path": stream.path = fieldValue
    case ":authority": stream.authority = fieldValue
    case ":scheme": break
    case "content-length":
        stream.declaredLength = Int(fieldValue)
        stream.headers.append(lowercased: fieldName, fieldValue)
    default: stream.headers.append(lowercased: fieldName, fieldValue)  // nghttp2 has checked names are lowercase
    }
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    guard let data else { return 0 }
    HTTP2ConnectionHandler.handler(userData).receivedData(streamID, data, length)
    return 0
}

private let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let handler = HTTP2ConnectionHandler.handler(userData)
    let (type, flags, streamID) = (frame.pointee.hd.type, frame.pointee.hd.flags, frame.pointee.hd.stream_id)
    guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
        let stream = handler.streams[streamID]
    else { return 0 }
    let ended = flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    if ended { stream.remoteEnded = true }
    guard stream.phase == .receiving else { return 0 }
    if type == UInt8(NGHTTP2_HEADERS.rawValue) {
        let limits = handler.limits
        if stream.headersTooLarge {
            handler.reject(
                streamID, stream, status: 431,
                "request header fields exceed the limit of \(limits.maxHeaderListBytes) bytes")
            return 0
        }
        if let declared = stream.declaredLength, declared > limits.maxBodyBytes {
            // refused before reading a byte of it
            handler.reject(
                streamID, stream, status: 413, "request body exceeds the limit of \(limits.maxBodyBytes) bytes")
            return 0
        }
    }
    if ended {
        handler.dispatch(streamID, stream)
    }
    return 0
}

private let onFrameSend: nghttp2_on_frame_send_callback = { _, frame, userData in
    guard let frame else { return 0 }
    if frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
        HTTP2ConnectionHandler.handler(userData).endedStream(frame.pointee.hd.stream_id)
    } else if frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
        HTTP2ConnectionHandler.handler(userData).sentGoAway(errorCode: frame.pointee.goaway.error_code)
    }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, _, userData in
    HTTP2ConnectionHandler.handler(userData).streamClosed(streamID)
    return 0
}
