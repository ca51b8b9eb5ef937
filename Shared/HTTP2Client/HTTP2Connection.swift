import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// One HTTP/2 connection to the peer; requests run on it as concurrent streams.
final class HTTP2Connection: Sendable {
    typealias Multiplexer = NIOHTTP2Handler.AsyncStreamMultiplexer<Void>

    let channel: any Channel
    let multiplexer: Multiplexer
    let state: HTTP2ConnectionState
    let logger: Logger

    init(channel: any Channel, multiplexer: Multiplexer, state: HTTP2ConnectionState, logger: Logger) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.state = state
        self.logger = logger
        // The watcher sees channelInactive too; this also covers a close before it was added.
        channel.closeFuture.whenComplete { _ in state.markClosed() }
    }

    /// Whether new requests may use this connection.
    var acceptsNewStreams: Bool {
        channel.isActive && state.acceptsNewStreams
    }

    /// Opens a stream speaking HTTP/1-shaped parts. `progress` learns how far the request head got and when the
    /// response head arrived; the request head is held back if the peer has sent GOAWAY by the time it is written.
    func openStream(usesTLS: Bool, progress: HTTP2StreamProgress) async throws -> HTTP2ClientStreamChannel {
        let state = self.state
        return try await multiplexer.openStream { streamChannel in
            streamChannel.eventLoop.makeCompletedFuture {
                let sync = streamChannel.pipeline.syncOperations
                try sync.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: usesTLS ? .https : .http))
                try sync.addHandler(HTTP2ResponseHeadObserver(progress: progress))
                try sync.addHandler(HTTP2RequestHeadObserver(progress: progress, connectionState: state))
                return try HTTP2ClientStreamChannel(wrappingChannelSynchronously: streamChannel)
            }
        }
    }

    /// Ends a stream; closes the connection when it is draining and this was its last stream.
    func releaseStream() {
        if state.releaseStream() {
            close()
        }
    }

    /// Stops handing this connection out; closes it at once when idle, else after its last stream.
    func retire() {
        if state.retire() {
            close()
        }
    }

    func close() {
        logger.debug("closing HTTP/2 connection")
        channel.close(promise: nil)
    }
}

/// A stream channel carrying one request and its response.
typealias HTTP2ClientStreamChannel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
