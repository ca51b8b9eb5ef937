import ServiceLifecycle

/// A service built when it starts, so that it can use the services listed before it in a service group, which are
/// already running then and stop after it: auth's application, which chooses its signing key and provisions clients
/// from its database.
public struct DeferredService: Service {
    private let build: @Sendable () async throws -> any Service

    /// - Parameter build: makes the service; what it throws ends the group (a `ConfigurationError` refuses to start).
    public init(_ build: @escaping @Sendable () async throws -> any Service) {
        self.build = build
    }

    public func run() async throws {
        try await build().run()
    }
}
