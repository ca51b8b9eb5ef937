import DispatchService
import Foundation
import Logging
import ServiceLifecycle
import TestSupport
import Testing

/// Runs delivery workers in a `ServiceGroup`, as the application does, for the duration of `body`, then shuts them
/// down gracefully and waits until they stopped.
enum RunningWorkers {
    static func with(_ workers: [any Service], _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(configuration: .init(services: workers, logger: .quiet))
        let run = Task { try await group.run() }
        do {
            try await body()
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await run.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await run.value
    }
}

extension TemporaryDirectory {
    /// The database file inside.
    var databasePath: String { path + "/dispatch.sqlite" }
}
