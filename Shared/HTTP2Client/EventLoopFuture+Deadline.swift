import NIOCore
import Synchronization

extension EventLoopFuture where Value: Sendable {
    /// Waits for the result, but gives up with `timeoutError` at `deadline` and with `CancellationError`
    /// when the task is cancelled; the future itself carries on.
    func get(deadline: NIODeadline, timeoutError: any Error) async throws -> Value {
        let waiter = SingleResumption<Value>()
        let timer = eventLoop.scheduleTask(deadline: deadline) { waiter.resume(with: .failure(timeoutError)) }
        defer { timer.cancel() }
        whenComplete { waiter.resume(with: $0) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiter.install($0) }
        } onCancel: {
            waiter.resume(with: .failure(CancellationError()))
        }
    }
}
