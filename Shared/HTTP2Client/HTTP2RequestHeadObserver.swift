import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Watches the write of the request head on a stream channel. The HTTP/1 codec hands the head's promise on
/// to the HEADERS frame, so its result says whether the request reached the connection.
final class HTTP2RequestHeadObserver: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let progress: HTTP2StreamProgress

    init(progress: HTTP2StreamProgress) {
        self.progress = progress
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        progress.set(.writingHead)
        let headPromise = promise ?? context.eventLoop.makePromise()
        let channel = context.channel
        let progress = self.progress
        headPromise.futureResult.whenComplete { result in
            switch result {
            case .success:
                // Safe: this callback runs on the stream's event loop, and only the stream-id option is read.
                let streamID = try? channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
                progress.set(.headWritten(streamID))
            case .failure:
                progress.set(.headFailed)
            }
        }
        context.write(data, promise: headPromise)
    }
}
