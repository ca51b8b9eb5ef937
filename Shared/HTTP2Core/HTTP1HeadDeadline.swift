import NIOCore

/// Bounds how long an HTTP/1.1 request's head (request line and headers) may take to arrive: the first handler of an
/// HTTP/1.1 connection, before NIO's decoder, so it sees bytes as they come. The clock starts at a request's first
/// byte and stops when ``HTTP1ConnectionHandler`` has the whole head (its body is bounded there); a client still
/// sending its head after ``HTTP2Limits/requestTimeout`` is disconnected.
///
/// Without it a client dripping one header byte now and then would hold a connection and its buffered header bytes
/// forever: the idle timeout never fires while bytes arrive, and the request timer starts only with a complete head.
final class HTTP1HeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Sent through the pipeline by ``HTTP1ConnectionHandler``; consumed here.
    enum Event {
        /// A request's head is complete.
        case headReceived
        /// The response to the current request has been written: the next bytes begin a new head.
        case responseFinished
    }

    private let timeout: TimeAmount
    private var waitingForHead = true
    /// Bytes arrived while a request was in progress: with pipelining they may begin the next head.
    private var readDuringRequest = false
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancelTimer() }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if waitingForHead {
            if timer == nil { startTimer(context) }
        } else {
            readDuringRequest = true
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? Event else { return context.fireUserInboundEventTriggered(event) }
        switch event {
        case .headReceived:
            cancelTimer()
            waitingForHead = false
            readDuringRequest = false
        case .responseFinished:
            waitingForHead = true
            if readDuringRequest { startTimer(context) }
            readDuringRequest = false
        }
    }

    private func startTimer(_ context: ChannelHandlerContext) {
        cancelTimer()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
