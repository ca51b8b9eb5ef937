import NIOCore
import NIOHTTP1

/// Notes on the stream's event loop when the final response head arrives, where the request timer also runs:
/// a head that arrived in time is never lost to a timer firing before the reading task gets to it.
final class HTTP2ResponseHeadObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    private let progress: HTTP2StreamProgress

    init(progress: HTTP2StreamProgress) {
        self.progress = progress
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), head.isFinal {
            progress.markResponseHead()
        }
        context.fireChannelRead(data)
    }
}
