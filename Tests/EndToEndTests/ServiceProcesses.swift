import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The service processes one test starts, each with the test's common environment plus variables of its own.
final class ServiceProcesses {
    let environment: [String: String]
    let logger: Logger
    /// Every process started and not forgotten, oldest first.
    private(set) var all: [ServiceProcess] = []

    init(environment: [String: String], logger: Logger) {
        self.environment = environment
        self.logger = logger
    }

    /// Starts `executable` as `name` on `port` (a free one by default) announced in `portVariable`, with `extra` on
    /// top of the common environment, and waits until it is ready.
    func start(
        _ executable: String, _ name: String, _ portVariable: String, _ extra: [String: String] = [:],
        port: Int? = nil
    ) async throws -> ServiceProcess {
        let process = try await ServiceProcess.start(
            executable, name: name, environment: environment.merging(extra) { _, new in new },
            portVariable: portVariable, logger: logger, port: port)
        all.append(process)
        return process
    }

    /// Stops every process with `signal`, newest last, and forgets them.
    func stopAll(signal: Int32 = SIGTERM) async {
        for process in all { await process.stop(signal: signal) }
        all = []
    }
}
