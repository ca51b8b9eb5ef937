import HTTP2Core
import Logging
import NIOCore

/// One HTTP/2 connection to the peer (an nghttp2 client session, ``HTTP2ClientConnection``); requests run on it as
/// concurrent streams. Adds what the client's pool needs: streams counted, GOAWAY and closing recorded, retiring.
final class HTTP2Connection: Sendable {
    let core: HTTP2ClientConnection
    let state: HTTP2ConnectionState
    let logger: Logger

    init(core: HTTP2ClientConnection, state: HTTP2ConnectionState, logger: Logger) {
        self.core = core
        self.state = state
        self.logger = logger
        // The session reports its close too; this also covers a close before it was set up.
        core.channel.closeFuture.whenComplete { _ in state.markClosed() }
    }

    /// The TCP (and TLS) channel.
    var channel: any Channel { core.channel }

    /// Whether new requests may use this connection.
    var acceptsNewStreams: Bool {
        channel.isActive && state.acceptsNewStreams
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
        core.close()
    }
}
