import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import Synchronization

/// Every connection the mock accepted, so tests can count and break them.
final class ConnectionLog: Sendable {
    private let channels = Mutex<[any Channel]>([])

    func accepted(_ channel: any Channel) {
        channels.withLock { $0.append(channel) }
    }

    /// How many connections were accepted.
    var count: Int { channels.withLock { $0.count } }

    /// How many accepted connections are still open.
    var openCount: Int { channels.withLock { $0.filter(\.isActive).count } }

    /// Sends GOAWAY on every connection from the server's side, leaving the connections open.
    func sendGoAway(lastStreamID: HTTP2StreamID) async throws {
        for channel in channels.withLock({ $0 }) where channel.isActive {
            let frame = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil)
            )
            try await channel.writeAndFlush(frame).get()
        }
    }

    /// Closes every connection abruptly, without GOAWAY, as a crashing server would.
    func closeAll() async {
        for channel in channels.withLock({ $0 }) {
            try? await channel.close().get()
        }
    }
}

/// Wraps a Hummingbird child channel to log each accepted connection.
struct ObservedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let log: ConnectionLog

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        log.accepted(channel)
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
