import Foundation

extension Process {
    /// Runs the process and waits for it to exit without blocking a thread: the servers under test run their
    /// handlers on the same small cooperative pool, and a blocked pool thread would starve them.
    public func runToExit() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            terminationHandler = { _ in continuation.resume() }
            do {
                try run()
            } catch {
                terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}
