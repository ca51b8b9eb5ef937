import Logging
import NIOCore
import NIOHTTP2

/// Sits after the `NIOHTTP2Handler`, which forwards every stream-0 frame down the connection pipeline,
/// and tells the connection state about GOAWAY, errors and the connection closing.
final class HTTP2ConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    private let state: HTTP2ConnectionState
    private let logger: Logger

    init(state: HTTP2ConnectionState, logger: Logger) {
        self.state = state
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .goAway(let lastStreamID, let errorCode, _) = frame.payload {
            logger.debug(
                "HTTP/2 peer sent GOAWAY",
                metadata: ["http2.last_stream_id": "\(lastStreamID)", "http2.error_code": "\(errorCode)"]
            )
            if state.receivedGoAway(lastStreamID: lastStreamID) {
                context.close(promise: nil)
            }
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        state.record(error)
        logger.debug("HTTP/2 connection error", metadata: ["error": "\(error)"])
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.markClosed()
        context.fireChannelInactive()
    }
}
