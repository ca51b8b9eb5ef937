import HummingbirdCore
import Logging
import NIOCore

/// A Hummingbird child channel (HTTP/2 cleartext, or TLS with ALPN) with a ``ConnectionGuard`` first in every
/// connection's pipeline.
struct GuardedServerChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let timeouts: ConnectionGuard.Timeouts

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(timeouts: timeouts, logger: logger), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
