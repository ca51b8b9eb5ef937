import ChildProcesses
import Foundation

extension Process {
    /// Starts the process and returns at once with a task that finishes with its exit status: for children that run
    /// beside a test (a service, a load generator) until the test stops them. Waiting on the task blocks no thread
    /// (see ``exitStatus(within:)``; -1 when the exit could not be learnt).
    public func runInBackground() throws -> Task<Int32, Never> {
        try run()
        let process = self
        return Task { (try? await process.exitStatus(within: nil)) ?? -1 }
    }
}
