import Synchronization

/// A continuation resumed by whichever comes first: result, timeout or cancellation.
final class SingleResumption<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value, any Error>)
        case resultBeforeWaiting(Result<Value, any Error>)
        case done
    }

    private let state = Mutex(State.idle)

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .resultBeforeWaiting(let result):
                state = .done
                return result
            case .waiting, .done:
                preconditionFailure("continuation installed twice")
            }
        }
        if let early {
            continuation.resume(with: early)
        }
    }

    func resume(with result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .resultBeforeWaiting(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .resultBeforeWaiting, .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
