import Foundation

extension ServiceProcess {
    /// Runs the built service `binary` (e.g. `auth-service`) with exactly `environment` until it exits by itself
    /// (killed after 30 s): for configurations it must refuse. Returns its exit status and standard error.
    static func runUntilExit(_ binary: String, environment: [String: String]) async throws -> (
        status: Int32, standardError: String
    ) {
        let process = Process()
        process.executableURL = buildDirectory.appendingPathComponent(binary)
        process.environment = environment
        let killer = Task {
            try await Task.sleep(for: .seconds(30))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        defer { killer.cancel() }
        let result = try await process.runCapturingOutput()
        return (result.status, result.error)
    }
}
