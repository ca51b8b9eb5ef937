import CNGHTTP2
import Logging
import NIOCore

/// One HTTP/2 server connection: owns one nghttp2 server session, feeds it the bytes NIO reads, writes what it
/// produces (once per read burst), and turns complete requests into handler calls.
///
/// Pointer lifetimes: the session's `user_data` is `self`, unretained. The pipeline retains this handler from
/// `handlerAdded` to `handlerRemoved`; the session is created in `handlerAdded` and deleted in `teardown()`
/// (`channelInactive` or `handlerRemoved`, whichever comes first), never while an nghttp2 call is on the stack.
/// nghttp2 only calls back during `mem_recv` and `mem_send`, so every callback finds `self` alive.
final class HTTP2ConnectionHandler: ChannelInboundHandler, HTTPResponseTarget, NGHTTP2SessionDriver {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let configuration: HTTP2ConnectionConfiguration
    let logger: Logger
    /// The nghttp2 session (`nghttp2_session *`); `nil` before `handlerAdded` and after `teardown()`.
    private(set) var session: OpaquePointer?
    /// Open streams by id; entries are removed by nghttp2's stream-close callback or by `teardown()`.
    var streams: [Int32: HTTP2StreamState] = [:]
    private(set) var context: ChannelHandlerContext?
    private(set) var remoteAddress: SocketAddress?
    /// Between `channelRead` and `channelReadComplete`: responses submitted then go out in one write and flush.
    var inReadBurst = false
    /// nghttp2 calls on the stack (`mem_recv`, `mem_send`): a teardown requested meanwhile waits for them.
    var nghttp2Depth = 0
    private(set) var teardownPending = false
    var flushing = false
    var flushAgain = false
    /// Write promises whose bytes nghttp2 has taken, succeeded after `mem_send` returns (never inside a callback).
    var promisesToSucceed: [EventLoopPromise<Void>] = []
    /// When the last stream closed (or the connection opened); the idle timer checks it.
    private var idleSince = NIODeadline.now()
    private var idleTimer: Scheduled<Void>?
    /// Whether the client has opened a stream yet: until then `handshakeTimeout` bounds the connection, not
    /// `idleTimeout`.
    private var hasOpenedStream = false
    private var shutdownDeadline: Scheduled<Void>?
    private var goingAway = false
    /// Request body bytes this connection's arriving streams hold (``HTTP2Limits/maxConnectionBufferBytes``).
    var bufferedRequestBytes = 0
    /// Bytes received but not credited back, over all streams: more than zero while the budget is full.
    var uncreditedBytes = 0
    /// Response bytes queued on this connection's streams, not yet handed to nghttp2.
    var pendingResponseBytes = 0
    /// Fires at the earliest receive deadline of a stream whose request is still arriving; armed at the end of a read
    /// burst only if one is (a request that arrived whole in the burst, such as a `GET` holding an event stream,
    /// needs none: 10,000 idle event streams would otherwise hold 10,000 timers that fire for nothing).
    var requestTimer: Scheduled<Void>?
    /// A stream opened during this read burst: ``channelReadComplete(context:)`` looks for requests still arriving.
    var streamOpenedInBurst = false
    /// Fires `idleTimeout` after response bytes were left waiting by a round of writing: a stream whose bytes still
    /// wait then is stalled. Armed by ``armStallCheck()``.
    var stallTimer: Scheduled<Void>?
    /// Whether ``shrinkHeaderTableForStreaming()`` has sent its SETTINGS frame on this connection.
    var headerTableShrunk = false
    /// Streams whose refusal has been sent while their request was unfinished: reset after this round of writing.
    var resetsDue: [Int32] = []

    init(configuration: HTTP2ConnectionConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        remoteAddress = context.channel.remoteAddress
        do {
            session = try Self.makeSession(userData: Unmanaged.passUnretained(self).toOpaque(), limits: limits)
        } catch {
            logger.debug("nghttp2 session not created", metadata: ["http2.error": "\(error)"])
            context.close(promise: nil)
            return
        }
        scheduleIdleCheck(in: idleLimit)
        if context.channel.isActive { flushOutput() }  // our SETTINGS go first
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
        if streamOpenedInBurst {
            streamOpenedInBurst = false
            armRequestCheck()
        }
        readComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { flushOutput() }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let shutdown = event as? HTTP2CoreServer.GracefulShutdown {
            goAway(closingBy: shutdown.deadline)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("HTTP/2 connection error", metadata: ["http2.error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Output

    /// Write promises whose bytes nghttp2 took during the round succeed now, outside nghttp2's calls.
    func framesWritten() {
        let promises = promisesToSucceed
        promisesToSucceed.removeAll()
        for promise in promises { promise.succeed() }
        resetRefusedStreams()
        armStallCheck()
    }

    /// Bad client preface, a flood nghttp2 detected, out of memory.
    func receiveFailed(_ reason: String) {
        logger.debug("HTTP/2 connection failed", metadata: ["http2.error": "\(reason)"])
    }

    func sendFailed(_ code: Int32) {
        logger.debug("HTTP/2 send failed", metadata: ["http2.error": "\(Self.errorText(code))"])
        context?.close(promise: nil)
    }

    /// Outside a read burst (an async answer, a streamed chunk) frames go out now; inside one, at its end.
    func flushUnlessReading() {
        if !inReadBurst { flushOutput() }
    }

    // MARK: Lifetime

    /// Deletes the session and drops every stream: pending writes fail, close callbacks run (on a later tick).
    func teardown() {
        if nghttp2Depth > 0 {
            teardownPending = true
            return
        }
        teardownPending = false
        idleTimer?.cancel()
        idleTimer = nil
        shutdownDeadline?.cancel()
        shutdownDeadline = nil
        requestTimer?.cancel()
        requestTimer = nil
        stallTimer?.cancel()
        stallTimer = nil
        guard let session else { return }
        self.session = nil
        nghttp2_session_del(session)  // no callback runs from here on: user_data (self) is no longer used
        let closed = streams
        streams.removeAll()
        for stream in closed.values { finish(stream) }
        configuration.load.addRequestBytes(-bufferedRequestBytes)
        configuration.load.addResponseBytes(-pendingResponseBytes)
        bufferedRequestBytes = 0
        pendingResponseBytes = 0
        uncreditedBytes = 0
    }

    /// Fails a closed stream's pending writes and schedules its close callbacks.
    func finish(_ stream: HTTP2StreamState) {
        for (_, promise) in stream.writePromises { promise.fail(HTTP2CoreError.streamClosed) }
        stream.writePromises.removeAll()
        guard !stream.closeCallbacks.isEmpty, let context else { return }
        let callbacks = stream.closeCallbacks
        stream.closeCallbacks.removeAll()
        context.eventLoop.execute { for callback in callbacks { callback() } }
    }

    /// Sends GOAWAY naming the last stream nghttp2 processed: streams up to it finish, later ones are refused; the
    /// connection closes when the last one is done (`flushOutput`), or at `deadline` whatever the client does.
    func goAway(closingBy deadline: NIODeadline) {
        guard let session, let context, !goingAway else { return }
        goingAway = true
        let lastStream = nghttp2_session_get_last_proc_stream_id(session)
        _ = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, NGHTTP2_NO_ERROR.rawValue, nil, 0)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        shutdownDeadline = context.eventLoop.scheduleTask(deadline: deadline) {
            bound.value.context?.close(promise: nil)
        }
        flushUnlessReading()
    }

    /// At most one timer per connection, and none while a stream is open: when it fires after `idleTimeout` without
    /// an open stream, the connection goes away. A connection that only holds an event stream (the direct channel:
    /// thousands of them) has no timer at all, so it costs the event loop nothing while it idles; a connection of
    /// short requests keeps the one timer it has (no timer work per request).
    private func scheduleIdleCheck(in delay: TimeAmount) {
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        idleTimer = context.eventLoop.scheduleTask(in: delay) { bound.value.checkIdle() }
    }

    private func checkIdle() {
        idleTimer = nil
        guard session != nil else { return }
        // Not idle: the last stream to close schedules the next check (``streamClosed(_:)``).
        guard streams.isEmpty else { return }
        let timeout = idleLimit
        let idleFor = NIODeadline.now() - idleSince
        if idleFor >= timeout {
            goAway(closingBy: .now() + .seconds(1))
        } else {
            scheduleIdleCheck(in: timeout - idleFor)
        }
    }

    var limits: HTTP2Limits { configuration.limits }

    /// How long the connection may stay without an open stream: `handshakeTimeout` before its first one.
    private var idleLimit: TimeAmount {
        TimeAmount(hasOpenedStream ? limits.idleTimeout : min(limits.handshakeTimeout, limits.idleTimeout))
    }

    // MARK: Streams (called from the nghttp2 callbacks)

    func streamOpened(_ id: Int32) {
        let deadline = NIODeadline.now() + TimeAmount(limits.requestTimeout)
        streams[id] = HTTP2StreamState(receiveDeadline: deadline)
        streamOpenedInBurst = true
        if !hasOpenedStream {
            hasOpenedStream = true
            // The handshake limit is met; the idle limit counts from when the last stream closes.
            idleTimer?.cancel()
            idleTimer = nil
        }
    }

    func streamClosed(_ id: Int32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        releaseBody(id, stream)
        releaseOutbound(stream)
        finish(stream)
        guard streams.isEmpty else { return }
        idleSince = .now()
        if idleTimer == nil { scheduleIdleCheck(in: idleLimit) }
    }

    /// Hands a complete request to the handler and carries out its reply.
    func dispatch(_ id: Int32, _ stream: HTTP2StreamState) {
        guard let context else { return }
        stream.phase = .handling
        let request = HTTP2Request(
            method: stream.method ?? "", path: stream.path ?? "", authority: stream.authority, headers: stream.headers,
            body: stream.body ?? ByteBuffer(), remoteAddress: remoteAddress, httpVersion: 2)
        stream.headers = HTTP2Headers()  // the request owns them now: an open stream keeps only its small state
        releaseBody(id, stream)
        let responder = HTTP2Responder(target: self, stream: id, eventLoop: context.eventLoop)
        switch configuration.handler(request, responder) {
        case .response(let response):
            respond(stream: id, with: response)
        case .async(let work):
            let task = Task { responder.respond(await work()) }
            stream.closeCallbacks.append { task.cancel() }
        case .deferred:
            break
        }
    }

    /// Answers a request the core refuses itself (too large, too slow); the rest of it is discarded (and credited)
    /// as it arrives, until the client ends it or the request timeout resets the stream. (Not reset at once: curl,
    /// for one, drops a response whose stream was reset, even with NO_ERROR.)
    func reject(_ id: Int32, _ stream: HTTP2StreamState, status: Int, _ message: String) {
        stream.phase = .handling
        stream.headers = HTTP2Headers()
        releaseBody(id, stream)
        respond(stream: id, with: configuration.rejection(status, message))
    }
}
