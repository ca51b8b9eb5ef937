import HummingbirdCore
import Logging
import NIOCore
import TestSupport

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
