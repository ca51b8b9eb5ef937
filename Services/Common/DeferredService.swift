import ServiceLifecycle

/// A service built when it starts, so that it can use the services listed before it in a service group, which are
/// already running then and stop after it: the application at the end of every ``ServiceRunner/Plan``.
struct DeferredService: Service {
    private let build: @Sendable () async throws -> any Service
    private let built: @Sendable () -> Void

    /// - Parameters:
    ///   - build: makes the service; what it throws ends the group (a `ConfigurationError` refuses to start).
    ///   - built: runs once the service is built, before it runs: the process's start-up is over then.
    init(_ build: @escaping @Sendable () async throws -> any Service, built: @escaping @Sendable () -> Void = {}) {
        self.build = build
        self.built = built
    }

    /// This service, running `hook` after what it already runs once the service is built.
    func whenBuilt(_ hook: @escaping @Sendable () -> Void) -> DeferredService {
        let built = self.built
        return DeferredService(build) {
            built()
            hook()
        }
    }

    func run() async throws {
        let service = try await build()
        built()
        try await service.run()
    }
}
