import NIOCore
import NIOHTTPTypes

/// Tells the connection's ``ConnectionGuard`` when a request starts (its head is read) and when it ends (the
/// response's end is written, or the stream or connection closes first).
///
/// Added by Hummingbird to every HTTP/2 stream's pipeline and to every HTTP/1.1 connection's, after the HTTP codec.
/// It runs on the connection's event loop as frames are decoded, so the guard never sees a request late.
final class RequestReporter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var isOpen = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data), !isOpen {
            isOpen = true
            report(.started, context: context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), isOpen {
            isOpen = false
            report(.finished, context: context)
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finishIfOpen(context: context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finishIfOpen(context: context)
    }

    private func finishIfOpen(context: ChannelHandlerContext) {
        guard isOpen else { return }
        isOpen = false
        report(.finished, context: context)
    }

    private func report(_ event: ConnectionGuard.RequestEvent, context: ChannelHandlerContext) {
        // An HTTP/2 stream's parent is the connection (whose parent is the listening socket); on HTTP/1.1 this
        // pipeline is the connection's own. Either way the event loop is this one, so the guard hears it now.
        let channel = context.channel
        if let connection = channel.parent, connection.parent != nil {
            connection.pipeline.fireUserInboundEventTriggered(event)
        } else {
            context.pipeline.fireUserInboundEventTriggered(event)
        }
    }
}
