import ServiceLifecycle

/// A service built when it starts, so that it can use the services listed before it in a service group, which are
/// already running then and stop after it: the application at the end of every ``ServiceRunner/Plan``.
struct DeferredService: Service {
    private let build: @Sendable () async throws -> any Service

    /// - Parameter build: makes the service; what it throws ends the group (a `ConfigurationError` refuses to start).
    init(_ build: @escaping @Sendable () async throws -> any Service) {
        self.build = build
    }

    func run() async throws {
        try await build().run()
    }
}
