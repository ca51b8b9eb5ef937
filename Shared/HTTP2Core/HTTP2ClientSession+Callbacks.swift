import CNGHTTP2
import NIOCore

extension HTTP2ClientSession {
    /// A client session with our callbacks and limits, the preface and our SETTINGS already queued. `userData` must
    /// be the handler, alive for as long as the session (see the type's comment).
    static func makeSession(userData: UnsafeMutableRawPointer, configuration: HTTP2ClientSessionConfiguration)
        throws -> OpaquePointer
    {
        var callbacks: OpaquePointer?
        try NGHTTP2Session.check(nghttp2_session_callbacks_new(&callbacks))
        defer { nghttp2_session_callbacks_del(callbacks) }  // the session keeps its own copy
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, onFrameNotSent)
        nghttp2_session_callbacks_set_error_callback2(callbacks, onError)

        var options: OpaquePointer?
        try NGHTTP2Session.check(nghttp2_option_new(&options))
        defer { nghttp2_option_del(options) }  // copied into the session too
        // Windows open only as bodies are consumed (`nghttp2_session_consume`): a streamed body is paced by its reader.
        nghttp2_option_set_no_auto_window_update(options, 1)

        var session: OpaquePointer?
        try NGHTTP2Session.check(nghttp2_session_client_new2(&session, callbacks, userData, options))
        guard let session else { throw HTTP2ConnectionHandler.SessionError(code: NGHTTP2_ERR_NOMEM.rawValue) }
        let settings = [
            NGHTTP2Session.setting(NGHTTP2_SETTINGS_ENABLE_PUSH, 0),
            NGHTTP2Session.setting(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, configuration.maxHeaderListBytes),
            NGHTTP2Session.setting(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, configuration.streamWindowBytes),
        ]
        var result = settings.withUnsafeBufferPointer {
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress, $0.count)
        }
        if result == 0 {
            result = nghttp2_session_set_local_window_size(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(clamping: configuration.connectionWindowBytes))
        }
        guard result == 0 else {
            nghttp2_session_del(session)
            throw HTTP2ConnectionHandler.SessionError(code: result)
        }
        return session
    }

    /// The handler behind a callback's `user_data` (see the type's comment for why it is alive).
    static func session(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientSession {
        Unmanaged<HTTP2ClientSession>.fromOpaque(userData!).takeUnretainedValue()
    }
}

// MARK: nghttp2 callbacks. Each returns 0 (go on) or an nghttp2 error code; none calls back into nghttp2's receive
// or send functions, and none runs user code: consumers are resumed, and run in their own tasks.

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame, NGHTTP2Session.isHeaders(frame),
        let stream = HTTP2ClientSession.session(userData).streams[frame.pointee.hd.stream_id], !stream.headDelivered
    else { return 0 }
    // A new head block: an informational (1xx) head before it is forgotten.
    stream.status = nil
    stream.headers.removeAll()
    stream.headerListBytes = 0
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, let name, let value else { return 0 }
    let session = HTTP2ClientSession.session(userData)
    guard let stream = session.streams[frame.pointee.hd.stream_id], !stream.headDelivered else { return 0 }
    // Counted as SETTINGS_MAX_HEADER_LIST_SIZE counts; past the limit nothing is kept (an HPACK bomb costs a
    // counter), and the stream is reset.
    stream.headerListBytes += nameLength + valueLength + 32
    let limit = session.configuration.maxHeaderListBytes
    if stream.headerListBytes > limit {
        stream.headers.removeAll()
        stream.consumer.deliver(failure: .headersTooLarge(limit))
        return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)  // RST_STREAM for this stream only
    }
    // Copied into Swift strings here: nghttp2's buffers are only valid during this call.
    let fieldName = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let fieldValue = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    if fieldName == ":status" {
        stream.status = Int(fieldValue)
    } else if !fieldName.hasPrefix(":") {
        stream.headers.append((fieldName, fieldValue))  // nghttp2 has checked names are lowercase
    }
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { nghttp2, _, streamID, data, length, userData in
    let session = HTTP2ClientSession.session(userData)
    guard let data, let stream = session.streams[streamID] else {
        _ = nghttp2_session_consume(nghttp2, streamID, length)  // a reset stream's bytes still free the window
        return 0
    }
    let consumer = stream.consumer
    stream.bodyBytesReceived += length
    if let limit = consumer.bodyLimit, stream.bodyBytesReceived > limit {
        consumer.deliver(failure: .bodyTooLarge(limit))
        session.streams.removeValue(forKey: streamID)
        _ = nghttp2_submit_rst_stream(nghttp2, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
        _ = nghttp2_session_consume(nghttp2, streamID, length)
        return 0
    }
    // Copied out of nghttp2's receive buffer, which is only valid during this call.
    var chunk = session.context?.channel.allocator.buffer(capacity: length) ?? ByteBuffer()
    chunk.writeBytes(UnsafeRawBufferPointer(start: data, count: length))
    consumer.deliver(chunk: chunk)
    if consumer.consumesOnArrival { _ = nghttp2_session_consume(nghttp2, streamID, length) }
    return 0
}

private let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let session = HTTP2ClientSession.session(userData)
    let (type, flags, streamID) = (frame.pointee.hd.type, frame.pointee.hd.flags, frame.pointee.hd.stream_id)
    switch type {
    case UInt8(NGHTTP2_GOAWAY.rawValue):
        session.receivedGoAway(lastStreamID: frame.pointee.goaway.last_stream_id)
        return 0
    case UInt8(NGHTTP2_SETTINGS.rawValue):
        if flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { session.receivedSettings() }
        return 0
    case UInt8(NGHTTP2_PING.rawValue):
        if flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 {
            let data = withUnsafeBytes(of: frame.pointee.ping.opaque_data) {
                UInt64(bigEndian: $0.load(as: UInt64.self))
            }
            session.receivedPingAcknowledgement(data)
        }
        return 0
    case UInt8(NGHTTP2_HEADERS.rawValue), UInt8(NGHTTP2_DATA.rawValue):
        break
    default:
        return 0
    }
    guard let stream = session.streams[streamID] else { return 0 }
    if type == UInt8(NGHTTP2_HEADERS.rawValue), !stream.headDelivered, let status = stream.status {
        if (100..<200).contains(status) && status != 101 {
            stream.status = nil  // informational: the final head follows
        } else {
            stream.headDelivered = true
            stream.consumer.deliver(head: HTTP2ClientStream.Head(status: status, headers: stream.headers))
            stream.headers.removeAll()
        }
    }
    if flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
        if stream.headDelivered {
            stream.consumer.deliverEnd()
        } else {
            stream.consumer.deliver(failure: .connectionLost("the peer ended the stream without a response head"))
        }
    }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    let session = HTTP2ClientSession.session(userData)
    guard let stream = session.streams.removeValue(forKey: streamID) else { return 0 }
    let failure: HTTP2ClientStreamFailure
    if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
        failure = .refused
    } else if !stream.headSent {
        failure = .notSent("the stream closed before its HEADERS were sent")
    } else if let last = session.goAwayLastStreamID, streamID > last {
        failure = .refused  // above the GOAWAY's last stream id: not processed (RFC 9113 §6.8)
    } else if errorCode == NGHTTP2_NO_ERROR.rawValue {
        failure = .connectionLost("the stream closed before the response was complete")
    } else {
        failure = .reset(errorCode)
    }
    stream.consumer.deliver(failure: failure)  // no effect on a stream that ended normally
    return 0
}

private let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
    guard let frame else { return 0 }
    if frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue), frame.pointee.goaway.error_code != 0 {
        // nghttp2 ends the connection over something the peer sent (e.g. a header block it cannot decode).
        HTTP2ClientSession.session(userData).peerBrokeProtocol(
            "sent GOAWAY with HTTP/2 error \(frame.pointee.goaway.error_code)")
    }
    guard NGHTTP2Session.isHeaders(frame) else { return 0 }
    let streamID = frame.pointee.hd.stream_id
    guard let stream = HTTP2ClientSession.session(userData).streams[streamID] else { return 0 }
    stream.headSent = true
    stream.consumer.markSent(streamID)
    return 0
}

private let onFrameNotSent: nghttp2_on_frame_not_send_callback = { _, frame, errorCode, userData in
    guard let frame, NGHTTP2Session.isHeaders(frame) else { return 0 }
    let session = HTTP2ClientSession.session(userData)
    guard let stream = session.streams.removeValue(forKey: frame.pointee.hd.stream_id) else { return 0 }
    stream.consumer.deliver(failure: .notSent(HTTP2ClientSession.errorText(errorCode)))
    return 0
}

private let onError: nghttp2_error_callback2 = { _, _, message, length, userData in
    guard let message else { return 0 }
    // Copied: nghttp2's message is only valid during this call.
    let text = String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
    HTTP2ClientSession.session(userData).peerBrokeProtocol(text)
    return 0
}
