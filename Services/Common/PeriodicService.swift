import Logging
import ServiceLifecycle

/// A background `Service` that runs `work` every `interval` until graceful shutdown (e.g. purging expired rows).
public struct PeriodicService: Service {
    let name: String
    let interval: Duration
    let logger: Logger
    let work: @Sendable () async throws -> Void

    public init(name: String, interval: Duration, logger: Logger, work: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await work()
                } catch {
                    logger.warning("periodic.failed", metadata: ["periodic.name": "\(name)", "error": "\(error)"])
                }
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
            }
        }
    }
}
