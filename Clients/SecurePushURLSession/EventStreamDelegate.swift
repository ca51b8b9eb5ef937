import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads one direct-channel stream through `URLSessionDataDelegate` callbacks (FoundationNetworking has no
/// `bytes(for:)`): the status once the answer's head arrives, then the body's pieces as they come, until the
/// connection ends.
final class EventStreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var status: Int?
        var opened: (@Sendable () -> Void)?
        var received: (@Sendable (Data) throws -> Void)?
        var finished: CheckedContinuation<Int, any Error>?
        /// What `received` threw: the stream was cancelled for it, and ends with it.
        var refusal: (any Error)?
    }

    private let state = Mutex(State())

    /// Runs `task` until its connection ends; returns the answer's status. `opened` and `received` are called only
    /// while this runs (every callback comes before the task completes).
    func run(
        _ task: URLSessionDataTask, opened: @Sendable () -> Void, received: @Sendable (Data) throws -> Void
    ) async throws -> Int {
        try await withoutActuallyEscaping(opened) { opened in
            try await withoutActuallyEscaping(received) { received in
                try await withCheckedThrowingContinuation { continuation in
                    state.withLock { state in
                        state.opened = opened
                        state.received = received
                        state.finished = continuation
                    }
                    task.resume()
                }
            }
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let opened = state.withLock { state in
            state.status = status
            return status == 200 ? state.opened : nil
        }
        opened?()
        // Another status's body (an error page) is not the stream: no need to read it.
        completionHandler(status == 200 ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let received = state.withLock { $0.status == 200 && $0.refusal == nil ? $0.received : nil }
        do {
            try received?(data)
        } catch {
            state.withLock { $0.refusal = error }
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (status, finished, refusal) = state.withLock { state in
            defer {
                state.finished = nil
                state.opened = nil
                state.received = nil
            }
            return (state.status, state.finished, state.refusal)
        }
        if let refusal {
            finished?.resume(throwing: refusal)
        } else if let status, status != 200 || error == nil || (error as? URLError)?.code == .cancelled {
            // An answer other than 200 (its body declined), or a stream the server or the caller ended.
            finished?.resume(returning: status)
        } else {
            finished?.resume(throwing: error ?? URLError(.badServerResponse))
        }
    }
}
