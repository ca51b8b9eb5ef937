import NIOCore
import NIOHTTP2
import Synchronization

/// Every connection a test server accepted, so tests can count and break them.
public final class ConnectionLog: Sendable {
    private let channels = Mutex<[any Channel]>([])
    /// Fires each time an accepted connection closes.
    public let closed = Signal()

    public init() {}

    /// Records a new connection and returns its index (0 for the first).
    public func accepted(_ channel: any Channel) -> Int {
        let closed = self.closed
        channel.closeFuture.whenComplete { _ in closed.fire() }
        return channels.withLock { channels in
            channels.append(channel)
            return channels.count - 1
        }
    }

    /// How many connections were accepted.
    public var count: Int { channels.withLock { $0.count } }

    /// How many accepted connections are still open.
    public var openCount: Int { channels.withLock { $0.filter(\.isActive).count } }

    /// Sends GOAWAY on every connection from the server's side, leaving the connections open.
    ///
    /// A connection still in its TLS handshake has no HTTP/2 handler yet, and a frame written then would reach the
    /// TLS handler (a crash): each connection gets a bounded wait for its HTTP/2 handler first.
    public func sendGoAway(lastStreamID: HTTP2StreamID) async throws {
        for channel in channels.withLock({ $0 }) where channel.isActive {
            var speaksHTTP2 = false
            for _ in 0..<200 where channel.isActive {
                if (try? await channel.pipeline.containsHandler(type: NIOHTTP2Handler.self).get()) != nil {
                    speaksHTTP2 = true
                    break
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            guard speaksHTTP2 else { continue }
            let frame = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil)
            )
            try await channel.writeAndFlush(frame).get()
        }
    }

    /// Closes every connection abruptly, without GOAWAY, as a crashing peer would.
    public func closeAll() async {
        for channel in channels.withLock({ $0 }) {
            try? await channel.close().get()
        }
    }
}
