import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLSessionTask` started once and cancellable from a task's cancellation handler, even one that runs before the
/// task was made (it is then cancelled as it starts).
final class TaskBox: Sendable {
    private let state = Mutex<(task: URLSessionTask?, cancelled: Bool)>((nil, false))

    func start(_ task: URLSessionTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
