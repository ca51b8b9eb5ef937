import NIOCore
import NIOHTTP2
import Synchronization

/// Every connection a test server accepted, so tests can count and break them.
final class ConnectionLog: Sendable {
    private let channels = Mutex<[any Channel]>([])
    /// Fires each time an accepted connection closes.
    let closed = Signal()

    /// Records a new connection and returns its index (0 for the first).
    func accepted(_ channel: any Channel) -> Int {
        let closed = self.closed
        channel.closeFuture.whenComplete { _ in closed.fire() }
        return channels.withLock { channels in
            channels.append(channel)
            return channels.count - 1
        }
    }

    /// How many connections were accepted.
    var count: Int {
        channels.withLock { $0.count }
    }

    /// Closes every connection abruptly, without GOAWAY, as a crashing peer would.
    func closeAll() async {
        for channel in channels.withLock({ $0 }) {
            try? await channel.close().get()
        }
    }

    /// Sends GOAWAY on every connection from the server's side, leaving the connections open.
    func sendGoAway(lastStreamID: HTTP2StreamID) async throws {
        for channel in channels.withLock({ $0 }) {
            let frame = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil)
            )
            try await channel.writeAndFlush(frame).get()
        }
    }
}
