import NIOCore
import NIOHTTP1

/// HTTP/1.1: the fallback for TLS clients that do not offer ALPN `h2`, and the cleartext HTTP/1.1 mode (a scrape port). It collects one request at a time (NIO's pipelining
/// handler holds the next), calls the same handler as HTTP/2, and writes its reply; streaming replies are chunked.
final class HTTP1ConnectionHandler: ChannelInboundHandler, HTTPResponseTarget {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Phase {
        case idle
        case receiving
        case handling
        case responding
        case streaming
    }

    private let configuration: HTTP2ConnectionConfiguration
    private var context: ChannelHandlerContext?
    private var phase = Phase.idle
    /// Numbers the requests of this connection: a responder for an earlier one finds a different number and does
    /// nothing.
    private var current: Int32 = 0
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var tooLarge = false
    private var keepAlive = true
    private var goingAway = false
    private var closeCallbacks: [@Sendable () -> Void] = []
    /// Ends a request still arriving after ``HTTP2Limits/requestTimeout``: 408, then the connection closes.
    private var requestTimer: Scheduled<Void>?

    init(configuration: HTTP2ConnectionConfiguration) {
        self.configuration = configuration
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelInactive(context: ChannelHandlerContext) {
        releaseBody()
        requestTimer?.cancel()
        requestTimer = nil
        phase = .idle
        current &+= 1  // answers still pending are dropped
        runCloseCallbacks()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let limit = configuration.limits.maxBodyBytes
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            context.pipeline.fireUserInboundEventTriggered(HTTP1HeadDeadline.Event.headReceived)
            current &+= 1
            phase = .receiving
            head = requestHead
            releaseBody()
            keepAlive = requestHead.isKeepAlive
            let declared = requestHead.headers.first(name: "content-length").flatMap { Int($0) }
            tooLarge = (declared ?? 0) > limit
            startRequestTimer(context: context)
        case .body(var chunk):
            guard phase == .receiving, !tooLarge else { return }
            if (body?.readableBytes ?? 0) + chunk.readableBytes > limit {
                tooLarge = true
                releaseBody()
            } else {
                configuration.load.addRequestBytes(chunk.readableBytes)
                if body == nil {
                    body = chunk
                } else {
                    body!.writeBuffer(&chunk)
                }
            }
        case .end:
            requestTimer?.cancel()
            requestTimer = nil
            guard phase == .receiving, let head else { return }
            phase = .handling
            if tooLarge {
                keepAlive = false  // the rest of an oversized body is not worth reading
                return respond(
                    stream: current,
                    with: configuration.rejection(413, "request body exceeds the limit of \(limit) bytes"))
            }
            dispatch(head, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let shutdown = event as? HTTP2CoreServer.GracefulShutdown {
            goingAway = true
            if phase == .idle { return context.close(promise: nil) }
            let channel = context.channel
            context.eventLoop.scheduleTask(deadline: shutdown.deadline) { channel.close(promise: nil) }
        } else if event is IdleStateHandler.IdleStateEvent, phase == .idle {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func dispatch(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTP2Headers()
        for (name, value) in head.headers { headers.add(name, value) }
        let request = HTTP2Request(
            method: head.method.rawValue, path: head.uri, authority: head.headers.first(name: "host"),
            headers: headers, body: body ?? ByteBuffer(), remoteAddress: context.channel.remoteAddress,
            httpVersion: 1)
        self.head = nil
        releaseBody()
        let responder = HTTP2Responder(target: self, stream: current, eventLoop: context.eventLoop)
        switch configuration.handler(request, responder) {
        case .response(let response):
            respond(stream: current, with: response)
        case .async(let work):
            let task = Task { responder.respond(await work()) }
            closeCallbacks.append { task.cancel() }
        case .deferred:
            break
        }
    }

    /// The request has ``HTTP2Limits/requestTimeout`` to arrive completely.
    private func startRequestTimer(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let request = current
        requestTimer = context.eventLoop.scheduleTask(in: TimeAmount(configuration.limits.requestTimeout)) {
            bound.value.requestTimedOut(request)
        }
    }

    /// The request has not arrived in time: 408, and the connection closes (HTTP/1.1 cannot skip the rest of it).
    private func requestTimedOut(_ request: Int32) {
        requestTimer = nil
        guard request == current, phase == .receiving else { return }
        phase = .handling
        keepAlive = false
        releaseBody()
        let seconds = configuration.limits.requestTimeout.components.seconds
        respond(
            stream: current, with: configuration.rejection(408, "request not received completely within \(seconds) s"))
    }

    /// The partial body no longer counts against the server's buffered bytes.
    private func releaseBody() {
        if let body { configuration.load.addRequestBytes(-body.readableBytes) }
        body = nil
    }

    // MARK: HTTPResponseTarget

    func respond(stream: Int32, with response: HTTP2Response) {
        guard let context, stream == current, phase == .handling else { return }
        phase = .responding
        var head = responseHead(status: response.status, headers: response.headers)
        if response.headers["content-length"] == nil, response.status != 204, response.status != 304 {
            head.headers.replaceOrAdd(name: "content-length", value: String(response.body.readableBytes))
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if response.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        finishResponse(context)
    }

    func startStreaming(stream: Int32, status: Int, headers: HTTP2Headers) -> Bool {
        guard let context, stream == current, phase == .handling else { return false }
        phase = .streaming
        // No content-length: NIO's encoder sends the body chunked.
        context.writeAndFlush(wrapOutboundOut(.head(responseHead(status: status, headers: headers))), promise: nil)
        return true
    }

    func write(stream: Int32, _ chunk: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let context, stream == current else {
            promise?.fail(HTTP2CoreError.streamClosed)
            return
        }
        guard phase == .streaming else {
            promise?.fail(HTTP2CoreError.notStreaming)
            return
        }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: promise)
    }

    func end(stream: Int32) {
        guard let context, stream == current, phase == .streaming else { return }
        finishResponse(context)
    }

    func reset(stream: Int32) {
        guard let context, stream == current else { return }
        context.close(promise: nil)  // HTTP/1.1 has no per-request reset
    }

    func onClose(stream: Int32, _ callback: @escaping @Sendable () -> Void) {
        if stream == current, phase != .idle {
            closeCallbacks.append(callback)
        } else {
            context?.eventLoop.execute(callback)
        }
    }

    private func responseHead(status: Int, headers: HTTP2Headers) -> HTTPResponseHead {
        var fields = HTTPHeaders()
        for field in headers.fields { fields.add(name: field.name, value: field.value) }
        if !keepAlive || goingAway { fields.replaceOrAdd(name: "connection", value: "close") }
        return HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
    }

    private func finishResponse(_ context: ChannelHandlerContext) {
        let close = !keepAlive || goingAway
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if close { channel.close(promise: nil) }
        }
        phase = .idle
        context.pipeline.fireUserInboundEventTriggered(HTTP1HeadDeadline.Event.responseFinished)
        runCloseCallbacks()
    }

    private func runCloseCallbacks() {
        guard !closeCallbacks.isEmpty, let context else { return }
        let callbacks = closeCallbacks
        closeCallbacks.removeAll()
        context.eventLoop.execute { for callback in callbacks { callback() } }
    }
}
