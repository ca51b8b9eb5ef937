import NIOCore

/// Keeps the first error of a connection before HTTP/2 is set up, so a failed TLS handshake can say why.
final class HTTP2ConnectionErrorRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    private let state: HTTP2ConnectionState

    init(state: HTTP2ConnectionState) {
        self.state = state
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        state.record(error)
        context.fireErrorCaught(error)
    }
}
