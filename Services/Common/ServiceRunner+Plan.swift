import ServiceLifecycle

extension ServiceRunner {
    /// What a process runs: its services in start order (they stop in reverse), and how long their graceful shutdown
    /// may take.
    ///
    /// Every SecurePush service is planned in one shape (``init(resources:application:shutdownTimeout:)``), by one
    /// function in its library (`AuthPlan`, `StorePlan`, `DispatchPlan`) that both its executable and `securepush up`
    /// run.
    public struct Plan: Sendable {
        /// The services, in start order.
        public var services: [any Service]
        /// How long the graceful shutdown of all of them may take.
        public var shutdownTimeout: Duration

        public init(services: [any Service], shutdownTimeout: Duration) {
            self.services = services
            self.shutdownTimeout = shutdownTimeout
        }

        /// A service's plan: `resources` (its database, the clients of its peers) start first and stop last; the
        /// application is built when the group starts it, after them, so building may use them (auth reads its signing
        /// keys from its database: a PostgreSQL pool's calls wait until it runs and has migrated), and a
        /// `ConfigurationError` it throws refuses to start like one thrown while planning.
        public init(
            resources: [any Service], application: @escaping @Sendable () async throws -> any Service,
            shutdownTimeout: Duration
        ) {
            self.init(services: resources + [DeferredService(application)], shutdownTimeout: shutdownTimeout)
        }

        /// This plan, running `hook` once its application is built and before it runs (when start-up is over); a
        /// plan with no application built at start (``init(services:shutdownTimeout:)``) never runs it.
        public func whenApplicationBuilt(_ hook: @escaping @Sendable () -> Void) -> Plan {
            var plan = self
            plan.services = services.map { service in
                guard let application = service as? DeferredService else { return service }
                return application.whenBuilt(hook)
            }
            return plan
        }
    }
}
