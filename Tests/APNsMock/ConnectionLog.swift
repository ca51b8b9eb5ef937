import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import Synchronization
import TestSupport

/// Every connection the mock accepted, so tests can count and break them.
public final class ConnectionLog: Sendable {
    private let channels = Mutex<[any Channel]>([])

    public init() {}

    /// Records a new connection and returns its index (0 for the first).
    public func accepted(_ channel: any Channel) -> Int {
        channels.withLock { channels in
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

    /// Closes every connection abruptly, without GOAWAY, as a crashing server would.
    public func closeAll() async {
        for channel in channels.withLock({ $0 }) {
            try? await channel.close().get()
        }
    }
}

/// Wraps a Hummingbird child channel to log each accepted connection and, for the first connection, put a
/// ``BlackHoleHandler`` in front of the server's pipeline (before TLS) when the test gave a ``BlackHole``.
struct ObservedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let log: ConnectionLog
    let blackHole: BlackHole?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let index = log.accepted(channel)
        if let blackHole, index == 0 {
            do {
                try channel.pipeline.syncOperations.addHandler(BlackHoleHandler(blackHole: blackHole), position: .first)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
