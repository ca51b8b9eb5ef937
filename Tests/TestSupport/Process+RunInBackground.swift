import Foundation

extension Process {
    /// Starts the process and returns at once with a task that finishes with its exit status: for children that run
    /// beside a test (a service, a load generator) until the test stops them. Waiting on the task blocks no thread.
    public func runInBackground() throws -> Task<Int32, Never> {
        let (exits, continuation) = AsyncStream.makeStream(of: Int32.self)
        terminationHandler = { process in
            continuation.yield(process.terminationStatus)
            continuation.finish()
        }
        do {
            try run()
        } catch {
            terminationHandler = nil
            continuation.finish()
            throw error
        }
        return Task { await exits.first { _ in true } ?? -1 }
    }
}
