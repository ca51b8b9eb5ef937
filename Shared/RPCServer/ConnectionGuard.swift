import Logging
import NIOCore

/// Bounds how long one client connection may hold the server: closes a connection that starts no request within the
/// handshake timeout, asks one that has had no request in flight for the idle timeout to go away (GOAWAY), and
/// closes every connection that was asked to go away (idle, or the server shutting down) as soon as it has no request
/// in flight, and at the latest after the drain timeout, whatever the client does.
///
/// It sits first in the connection's pipeline, so it sees the server's quiesce event before HTTP/2 does and works the
/// same for cleartext, TLS and HTTP/1.1. Requests are counted through ``RequestEvent``s that each stream
/// reports as frames are decoded (``RequestReporter``); they are not passed on.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// A request started or finished on this connection.
    enum RequestEvent: Sendable {
        case started
        case finished
    }

    /// The guard's time limits.
    struct Timeouts: Sendable {
        /// Longest a new connection may take to start its first request (TLS and HTTP/2 handshakes included).
        var handshake: TimeAmount
        /// Longest a connection may stay without a request in flight before it is asked to go away.
        var idle: TimeAmount
        /// Longest a connection asked to go away may keep requests running before it is closed.
        var drain: TimeAmount
        /// How long a connection asked to go away with nothing in flight has to answer (PING ack) before it is closed.
        var linger: TimeAmount = .seconds(1)
    }

    private let timeouts: Timeouts
    private let logger: Logger
    private var inFlight = 0
    private var hasStartedRequest = false
    private var isQuiescing = false
    private var idleTimer: Scheduled<Void>?
    private var drainTimer: Scheduled<Void>?
    private var lingerTimer: Scheduled<Void>?

    init(timeouts: Timeouts, logger: Logger) {
        self.timeouts = timeouts
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armIdleTimer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armIdleTimer(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let request as RequestEvent:
            handle(request, context: context)
        case is ChannelShouldQuiesceEvent:
            context.fireUserInboundEventTriggered(event)  // HTTP/2 writes its GOAWAY first
            beginQuiescing(context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func handle(_ event: RequestEvent, context: ChannelHandlerContext) {
        switch event {
        case .started:
            inFlight += 1
            hasStartedRequest = true
            idleTimer?.cancel()
            lingerTimer?.cancel()
        case .finished:
            inFlight = max(0, inFlight - 1)
            guard inFlight == 0 else { return }
            if isQuiescing {
                armLingerTimer(context: context)
            } else {
                armIdleTimer(context: context)
            }
        }
    }

    private func beginQuiescing(context: ChannelHandlerContext) {
        guard !isQuiescing else { return }
        isQuiescing = true
        idleTimer?.cancel()
        drainTimer = schedule(in: timeouts.drain, context: context) { handler, context in
            handler.logger.debug(
                "server.connection.drain_timeout", metadata: ["server.in_flight": "\(handler.inFlight)"])
            context.close(promise: nil)
        }
        if inFlight == 0 { armLingerTimer(context: context) }
    }

    private func armIdleTimer(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        let delay = hasStartedRequest ? timeouts.idle : timeouts.handshake
        idleTimer = schedule(in: delay, context: context) { handler, context in
            guard handler.inFlight == 0, !handler.isQuiescing else { return }
            if handler.hasStartedRequest {
                handler.logger.debug("server.connection.idle_timeout")
                context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
                handler.beginQuiescing(context: context)
            } else {
                handler.logger.debug("server.connection.handshake_timeout")
                context.close(promise: nil)
            }
        }
    }

    private func armLingerTimer(context: ChannelHandlerContext) {
        lingerTimer?.cancel()
        lingerTimer = schedule(in: timeouts.linger, context: context) { handler, context in
            guard handler.inFlight == 0 else { return }
            context.close(promise: nil)
        }
    }

    private func schedule(
        in delay: TimeAmount,
        context: ChannelHandlerContext,
        _ body: @escaping (ConnectionGuard, ChannelHandlerContext) -> Void
    ) -> Scheduled<Void> {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let body = NIOLoopBound(body, eventLoop: context.eventLoop)
        return context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = bound.value
            body.value(handler, context)
        }
    }

    private func cancelTimers() {
        idleTimer?.cancel()
        drainTimer?.cancel()
        lingerTimer?.cancel()
        idleTimer = nil
        drainTimer = nil
        lingerTimer = nil
    }
}
