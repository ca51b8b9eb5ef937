import CNGHTTP2
import Logging
import NIOCore

/// One HTTP/2 client connection: owns one nghttp2 client session, feeds it the bytes NIO reads, writes what it
/// produces (once per read burst, or once per event-loop tick for requests submitted from tasks), and delivers
/// responses to each request's ``HTTP2ClientStream``.
///
/// Pointer lifetimes, as in the server's `HTTP2ConnectionHandler`: the session's `user_data` is `self`,
/// unretained. The pipeline retains this handler from `handlerAdded` to `handlerRemoved`; the session is created in
/// `handlerAdded` and deleted in `teardown()` (`channelInactive` or `handlerRemoved`, whichever comes first), never
/// while an nghttp2 call is on the stack. nghttp2 only calls back during `mem_recv` and `mem_send` (and `consume`,
/// which calls none of ours), so every callback finds `self` alive. Every method runs on the channel's event loop.
final class HTTP2ClientSession: ChannelInboundHandler, NGHTTP2SessionDriver {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let configuration: HTTP2ClientSessionConfiguration
    let logger: Logger
    /// The nghttp2 session (`nghttp2_session *`); `nil` before `handlerAdded` and after `teardown()`.
    private(set) var session: OpaquePointer?
    /// Streams by id, from submit until nghttp2 reports them closed (or the request was not sent, or reset by us).
    var streams: [Int32: HTTP2ClientStreamState] = [:]
    private(set) var context: ChannelHandlerContext?
    /// Between `channelRead` and `channelReadComplete`: output waits for the end of the burst.
    var inReadBurst = false
    /// nghttp2 calls on the stack (`mem_recv`, `mem_send`): a teardown requested meanwhile waits for them.
    var nghttp2Depth = 0
    private(set) var teardownPending = false
    var flushing = false
    var flushAgain = false
    private var flushScheduled = false
    /// Why the connection broke, told to streams that end with it.
    private var brokenBecause: String?
    /// The lowest last-stream-id of the GOAWAYs received.
    private(set) var goAwayLastStreamID: Int32?
    /// Our PINGs awaiting acknowledgement, by their opaque data.
    var pings: [UInt64: EventLoopPromise<Void>] = [:]
    private var closeReported = false
    /// Succeeds when the peer's first SETTINGS frame arrives (its limits are known from then on); fails when the
    /// connection ends first.
    let peerSettings: EventLoopPromise<Void>

    init(configuration: HTTP2ClientSessionConfiguration, peerSettings: EventLoopPromise<Void>, logger: Logger) {
        self.configuration = configuration
        self.peerSettings = peerSettings
        self.logger = logger
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        do {
            session = try Self.makeSession(
                userData: Unmanaged.passUnretained(self).toOpaque(), configuration: configuration)
        } catch {
            logger.debug("nghttp2 client session not created", metadata: ["http2.error": "\(error)"])
            brokenBecause = "nghttp2 session not created: \(error)"
            context.close(promise: nil)
            return
        }
        if context.channel.isActive { flushOutput() }  // the preface and our SETTINGS go first
    }

    func channelActive(context: ChannelHandlerContext) {
        flushOutput()
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        teardown()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        teardown()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        read(unwrapInboundIn(data), context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readComplete()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { flushOutput() }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("HTTP/2 connection error", metadata: ["http2.error": "\(error)"])
        if brokenBecause == nil { brokenBecause = "connection error: \(error)" }
        context.close(promise: nil)
    }

    // MARK: Requests

    /// Submits a request; its response (or why there is none) goes to `consumer`.
    func start(_ head: HTTP2ClientRequestHead, body: ByteBuffer?, consumer: HTTP2ClientStream) {
        guard !consumer.isFinished else { return }  // cancelled or timed out before it got here
        guard let session, context != nil else {
            consumer.deliver(failure: .notSent(brokenBecause ?? "the connection is closed"))
            return
        }
        if goAwayLastStreamID != nil {
            // After GOAWAY no new stream may be opened (RFC 9113 §6.8): never sent, so safe to send elsewhere.
            consumer.deliver(failure: .notSent("the peer sent GOAWAY before the request went out"))
            return
        }
        var fields = [(":method", head.method), (":scheme", head.scheme), (":authority", head.authority)]
        fields.append((":path", head.path))
        for (name, value) in head.headers {
            let lowercased = name.lowercased()
            if lowercased == "host" || Self.connectionSpecificFields.contains(lowercased) { continue }
            fields.append((lowercased, value))
        }
        let body = body ?? ByteBuffer()
        // The provider names no source: the read callback finds the body by stream id in `streams`, which holds it
        // until nghttp2 reports the stream closed, after its last read.
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readRequestBody)
        let id = HTTP2ConnectionHandler.withNameValues(fields) { nameValues, count in
            body.readableBytes > 0
                ? nghttp2_submit_request(session, nil, nameValues, count, &provider, nil)
                : nghttp2_submit_request(session, nil, nameValues, count, nil, nil)
        }
        guard id > 0 else {
            consumer.deliver(failure: .notSent("nghttp2 refused the request: \(Self.errorText(id))"))
            return
        }
        consumer.markSubmitted(id)
        streams[id] = HTTP2ClientStreamState(consumer: consumer, requestBody: body)
        scheduleFlush()
    }

    /// Resets a stream the consumer gave up on (RST_STREAM CANCEL); its response is no longer delivered.
    func reset(_ consumer: HTTP2ClientStream) {
        guard let session, let id = consumer.submittedID, streams.removeValue(forKey: id) != nil else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        scheduleFlush()
    }

    /// The consumer read `bytes` of a streamed body: nghttp2 may open the windows by that much (WINDOW_UPDATE).
    func consume(_ consumer: HTTP2ClientStream, bytes: Int) {
        guard let session, let id = consumer.submittedID, streams[id] != nil else { return }
        _ = nghttp2_session_consume(session, id, bytes)
        scheduleFlush()
    }

    /// Sends a PING; `promise` succeeds with its acknowledgement and fails when the connection closes first.
    func ping(_ data: UInt64, promise: EventLoopPromise<Void>) {
        guard let session else {
            promise.fail(HTTP2ClientStreamFailure.connectionLost(brokenBecause ?? "the connection is closed"))
            return
        }
        let result = withUnsafeBytes(of: data.bigEndian) { bytes in  // nghttp2 copies the 8 bytes
            nghttp2_submit_ping(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), bytes.bindMemory(to: UInt8.self).baseAddress)
        }
        guard result == 0 else {
            promise.fail(HTTP2ClientStreamFailure.connectionLost(Self.errorText(result)))
            return
        }
        pings[data] = promise
        scheduleFlush()
    }

    // MARK: Output

    /// Output of requests submitted from tasks goes out once per event-loop tick, so a burst of submits shares a
    /// write and a flush; inside a read burst it waits for `channelReadComplete`.
    private func scheduleFlush() {
        guard !inReadBurst, !flushScheduled, let context else { return }
        flushScheduled = true
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            bound.value.flushScheduled = false
            bound.value.flushOutput()
        }
    }

    /// Nothing waits on a round of writing here: requests learn of their progress from nghttp2's callbacks.
    func framesWritten() {}

    /// A protocol violation, a flood nghttp2 detected, out of memory: open streams learn why.
    func receiveFailed(_ reason: String) {
        logger.debug("HTTP/2 connection failed", metadata: ["http2.error": "\(reason)"])
        brokenBecause = "HTTP/2 protocol error from the peer: \(reason)"
    }

    func sendFailed(_ code: Int32) {
        logger.debug("HTTP/2 send failed", metadata: ["http2.error": "\(Self.errorText(code))"])
        brokenBecause = "HTTP/2 send failed: \(Self.errorText(code))"
        context?.close(promise: nil)
    }

    // MARK: Lifetime

    /// Deletes the session and ends every stream and PING, saying whether each request can have been processed.
    func teardown() {
        if nghttp2Depth > 0 {
            teardownPending = true
            return
        }
        teardownPending = false
        guard let session else { return reportClose() }
        self.session = nil
        nghttp2_session_del(session)  // no callback runs from here on: user_data (self) is no longer used
        let reason = brokenBecause ?? "the connection closed before the response was complete"
        let ended = streams
        streams.removeAll()
        for (id, stream) in ended {
            if !stream.headSent {
                stream.consumer.deliver(failure: .notSent(reason))
            } else if let last = goAwayLastStreamID, id > last {
                stream.consumer.deliver(failure: .refused)
            } else {
                stream.consumer.deliver(failure: .connectionLost(reason))
            }
        }
        let waiting = pings
        pings.removeAll()
        for promise in waiting.values { promise.fail(HTTP2ClientStreamFailure.connectionLost(reason)) }
        reportClose()
    }

    private func reportClose() {
        guard !closeReported else { return }
        closeReported = true
        peerSettings.fail(HTTP2ClientConnectError(kind: .http2, detail: brokenBecause ?? "the connection closed"))
        configuration.onClose()
    }

    // MARK: Called from the nghttp2 callbacks

    func receivedGoAway(lastStreamID: Int32) {
        goAwayLastStreamID = Swift.min(lastStreamID, goAwayLastStreamID ?? lastStreamID)
        logger.debug("HTTP/2 peer sent GOAWAY", metadata: ["http2.last_stream_id": "\(lastStreamID)"])
        configuration.onGoAway(lastStreamID)
    }

    func receivedSettings() {
        guard let context else { return }
        let peerSettings = self.peerSettings
        context.eventLoop.execute { peerSettings.succeed() }  // never user code inside an nghttp2 callback
    }

    /// nghttp2 explains a protocol error of the peer (before it sends GOAWAY): kept to tell the streams.
    func peerBrokeProtocol(_ message: String) {
        logger.debug("HTTP/2 protocol error from the peer", metadata: ["http2.error": "\(message)"])
        if brokenBecause == nil { brokenBecause = "HTTP/2 protocol error from the peer: \(message)" }
    }

    func receivedPingAcknowledgement(_ data: UInt64) {
        guard let promise = pings.removeValue(forKey: data), let context else { return }
        context.eventLoop.execute { promise.succeed() }  // never user code inside an nghttp2 callback
    }

    /// Fields HTTP/2 forbids (RFC 9113 §8.2.2); a caller written for HTTP/1.1 might set them, so they are dropped.
    static let connectionSpecificFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
    ]
}

/// nghttp2 asks for up to `length` bytes of a stream's request body: copied from the stream's `requestBody` into
/// nghttp2's `buffer` (valid only during this call); the end of the buffer ends the stream.
private let readRequestBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    let session = HTTP2ClientSession.session(userData)
    guard let buffer, let flags, let stream = session.streams[streamID] else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)  // resets just this stream
    }
    let count = stream.requestBody.moveReadableBytes(into: buffer, upTo: length)
    if stream.requestBody.readableBytes == 0 {
        stream.requestBody = ByteBuffer()
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
    }
    return count
}
