import CNGHTTP2
import NIOCore

/// What one connection may cost: how long a request may take to arrive, how many request bytes it may buffer, and
/// how long response bytes may wait for a client that does not read.
///
/// Flow control is manual (`nghttp2_option_set_no_auto_window_update`): a body byte is credited back to the client
/// (`nghttp2_session_consume`, which sends WINDOW_UPDATE) only while the connection holds less than
/// ``HTTP2Limits/maxConnectionBufferBytes``. Past that the client can send at most what its connection window still
/// allows (64 KiB), so a connection's request bytes stay under the budget plus one window, whatever it sends.
extension HTTP2ConnectionHandler {
    // MARK: Request bytes

    /// A chunk of a stream's body arrived (`on_data_chunk_recv`): kept when the stream is receiving, else discarded;
    /// credited back at once unless the budget is full.
    func receivedData(_ id: Int32, _ data: UnsafePointer<UInt8>, _ length: Int) {
        guard let stream = streams[id], stream.phase == .receiving else {
            credit(id, length)  // the rest of a refused request: dropped, so it costs nothing
            return
        }
        let limit = limits.maxBodyBytes
        let received = stream.body?.readableBytes ?? 0
        guard received + length <= limit else {
            credit(id, length)
            reject(id, stream, status: 413, "request body exceeds the limit of \(limit) bytes")
            return
        }
        if stream.body == nil, let allocator = context?.channel.allocator {
            // Sized by the declared length, but at most 64 kB up front: a declaration alone reserves little memory.
            let expected = Swift.max(stream.declaredLength ?? length, length)
            stream.body = allocator.buffer(capacity: Swift.min(expected, 64 << 10))
        }
        // Copied out of nghttp2's receive buffer, which is only valid during this call.
        stream.body?.writeBytes(UnsafeRawBufferPointer(start: data, count: length))
        bufferedRequestBytes += length
        configuration.load.addRequestBytes(length)
        if bufferedRequestBytes <= limits.maxConnectionBufferBytes {
            credit(id, length)
        } else {
            stream.unconsumed += length
            uncreditedBytes += length
        }
    }

    /// The stream's body leaves the core (handed to the handler, refused, or the stream closed): its bytes no longer
    /// count, what was not credited is credited now, and streams waiting for the budget get theirs.
    func releaseBody(_ id: Int32, _ stream: HTTP2StreamState) {
        let held = stream.body?.readableBytes ?? 0
        stream.body = nil
        bufferedRequestBytes -= held
        configuration.load.addRequestBytes(-held)
        if stream.unconsumed > 0 {
            uncreditedBytes -= stream.unconsumed
            credit(id, stream.unconsumed)
            stream.unconsumed = 0
        }
        guard uncreditedBytes > 0, bufferedRequestBytes < limits.maxConnectionBufferBytes else { return }
        for (waitingID, waiting) in streams where waiting.unconsumed > 0 {
            guard bufferedRequestBytes < limits.maxConnectionBufferBytes else { break }
            uncreditedBytes -= waiting.unconsumed
            credit(waitingID, waiting.unconsumed)
            waiting.unconsumed = 0
        }
    }

    /// Tells nghttp2 the application is done with `length` bytes of `id`'s DATA: it sends WINDOW_UPDATE when enough
    /// has been credited. (Padding and DATA nghttp2 itself ignored are credited by nghttp2.)
    private func credit(_ id: Int32, _ length: Int) {
        guard let session, length > 0 else { return }
        _ = nghttp2_session_consume(session, id, length)
        flushUnlessReading()
    }

    // MARK: Request deadline

    /// Arms the connection's one request timer, unless it is armed, for the earliest deadline of the streams whose
    /// requests are still arriving (none: no timer).
    func armRequestCheck() {
        guard requestTimer == nil else { return }
        var next: NIODeadline?
        for stream in streams.values where !stream.remoteEnded {
            next = Swift.min(next ?? stream.receiveDeadline, stream.receiveDeadline)
        }
        if let next { scheduleRequestCheck(at: next) }
    }

    /// Schedules the connection's one request timer; it checks every stream still arriving.
    func scheduleRequestCheck(at deadline: NIODeadline) {
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        requestTimer = context.eventLoop.scheduleTask(deadline: deadline) { bound.value.checkRequestDeadlines() }
    }

    /// Ends every stream whose request has not arrived by its deadline: `408` when it has no answer yet, else
    /// RST_STREAM(CANCEL); then waits for the next deadline, if any stream is still arriving.
    private func checkRequestDeadlines() {
        requestTimer = nil
        guard let session else { return }
        let now = NIODeadline.now()
        var next: NIODeadline?
        for (id, stream) in streams where !stream.remoteEnded {
            if stream.receiveDeadline <= now {
                expire(id, stream, session: session)
            } else {
                next = Swift.min(next ?? stream.receiveDeadline, stream.receiveDeadline)
            }
        }
        if let next { scheduleRequestCheck(at: next) }
        flushUnlessReading()
    }

    private func expire(_ id: Int32, _ stream: HTTP2StreamState, session: OpaquePointer) {
        stream.remoteEnded = true  // checked once: the stream is on its way out
        if stream.phase == .receiving {
            let seconds = limits.requestTimeout.components.seconds
            reject(id, stream, status: 408, "request not received completely within \(seconds) s")
            stream.resetAfterResponse = true
        } else {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        }
    }

    /// A frame that ended our side of a stream went out (`on_frame_send`): a refused stream whose client is still
    /// sending is reset after this round of writing.
    func endedStream(_ id: Int32) {
        guard let stream = streams[id], stream.resetAfterResponse else { return }
        stream.resetAfterResponse = false
        resetsDue.append(id)
    }

    /// Resets the streams ``endedStream(_:)`` collected (outside nghttp2's calls), and writes again.
    func resetRefusedStreams() {
        guard !resetsDue.isEmpty, let session else { return }
        for id in resetsDue {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_NO_ERROR.rawValue)
        }
        resetsDue.removeAll()
        flushAgain = true
    }

    // MARK: Response bytes

    /// `count` response bytes were queued on `stream`: they count, and they start waiting if none were.
    func queuedOutbound(_ stream: HTTP2StreamState, _ count: Int) {
        pendingResponseBytes += count
        configuration.load.addResponseBytes(count)
        if stream.waitingSince == nil { stream.waitingSince = .now() }
    }

    /// After a round of writing: arms the stall timer when response bytes are still waiting (the peer's window or
    /// the socket is full). Bytes that went out in the round need none: an event stream's keepalive written every
    /// 15 s on each of 10,000 connections would otherwise keep 10,000 timers scheduled and firing.
    func armStallCheck() {
        if pendingResponseBytes > 0, stallTimer == nil { scheduleStallCheck(in: TimeAmount(limits.idleTimeout)) }
    }

    /// `count` response bytes went to nghttp2 (`count` may be 0: the provider was asked, nothing was waiting).
    func sentOutbound(_ stream: HTTP2StreamState, _ count: Int) {
        guard count > 0 else { return }
        pendingResponseBytes -= count
        configuration.load.addResponseBytes(-count)
        stream.waitingSince = stream.outbound.readableBytes > 0 ? .now() : nil
    }

    /// A closing stream's unsent response bytes no longer count.
    func releaseOutbound(_ stream: HTTP2StreamState) {
        let left = stream.outbound.readableBytes
        stream.outbound = ByteBuffer()
        stream.waitingSince = nil
        pendingResponseBytes -= left
        configuration.load.addResponseBytes(-left)
    }

    private func scheduleStallCheck(in delay: TimeAmount) {
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        stallTimer = context.eventLoop.scheduleTask(in: delay) { bound.value.checkStalledStreams() }
    }

    /// A stream whose response bytes have waited `idleTimeout` without one being sent is stalled (its send window,
    /// or the socket, stayed full): it is reset and its bytes freed. When every stream of the connection is stalled
    /// or still arriving, nobody is using it: it is closed.
    private func checkStalledStreams() {
        stallTimer = nil
        guard let session, let context else { return }
        let idle = TimeAmount(limits.idleTimeout)
        let now = NIODeadline.now()
        var stalled: [Int32] = []
        var next: NIODeadline?
        var inUse = false
        for (id, stream) in streams {
            if let since = stream.waitingSince {
                if now - since >= idle {
                    stalled.append(id)
                    continue
                }
                next = Swift.min(next ?? since + idle, since + idle)
            }
            if stream.remoteEnded { inUse = true }
        }
        if !stalled.isEmpty && !inUse {
            logger.debug("HTTP/2 connection stalled", metadata: ["http2.stalled_streams": "\(stalled.count)"])
            context.close(promise: nil)
            return
        }
        for id in stalled {
            streams[id].map(releaseOutbound)
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        }
        if let next { scheduleStallCheck(in: next - now) }
        flushUnlessReading()
    }
}
