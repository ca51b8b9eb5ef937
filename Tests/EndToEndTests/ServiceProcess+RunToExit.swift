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
        let standardError = Pipe()
        process.standardError = standardError
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let killer = Task {
            try await Task.sleep(for: .seconds(30))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let output = String(decoding: standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        killer.cancel()
        return (process.terminationStatus, output)
    }
}
