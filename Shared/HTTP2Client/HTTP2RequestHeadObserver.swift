import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Guards and watches the write of the request head on a stream channel. The HTTP/1 codec hands the head's promise
/// on to the HEADERS frame, so its result says whether the request reached the connection.
final class HTTP2RequestHeadObserver: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let progress: HTTP2StreamProgress
    private let connectionState: HTTP2ConnectionState

    init(progress: HTTP2StreamProgress, connectionState: HTTP2ConnectionState) {
        self.progress = progress
        self.connectionState = connectionState
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // A request can take its stream just before a GOAWAY is read. GOAWAY is recorded on this same event loop,
        // so checking here closes that window: after GOAWAY no new stream may be opened (RFC 9113 §6.8), and the
        // request, never sent, is retried on a new connection.
        if connectionState.goAwayLastStreamID != nil {
            progress.set(.headFailed("the peer sent GOAWAY before the request went out"))
            promise?.fail(HTTP2StreamFailure.goAwayBeforeSend)
            context.close(promise: nil)
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
            case .failure(let error):
                progress.set(.headFailed("\(error)"))
                // The stream never opened on the wire and nothing will arrive on it: end it now, so the request
                // fails (and may be retried) at once instead of waiting for its timeout.
                channel.close(promise: nil)
            }
        }
        context.write(data, promise: headPromise)
    }
}
