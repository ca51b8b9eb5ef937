import HummingbirdCore
import Logging
import NIOCore
import TestSupport

/// Wraps a Hummingbird child channel to log each accepted connection and optionally add handlers
/// in front of the server's own pipeline.
struct ObservedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    /// Sets up the first connection instead of `base` when given (say, with a different idle timeout).
    var firstConnectionBase: Base? = nil
    let log: ConnectionLog
    /// Called on the connection's event loop before the base sets the pipeline up; gets the connection index.
    let prepare: @Sendable (any Channel, Int) throws -> Void

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let index = log.accepted(channel)
        do {
            try prepare(channel, index)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let setUpBy = index == 0 ? firstConnectionBase ?? base : base
        return setUpBy.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
