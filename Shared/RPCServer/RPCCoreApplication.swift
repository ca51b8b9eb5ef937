import HTTP2Core
import Logging
import NIOSSL
import ServiceLifecycle

/// A SecurePush service on the HTTP/2 core: its listener plus the background services it runs and stops with itself.
///
/// On graceful shutdown the listener stops first (GOAWAY on every connection; in-flight requests finish, within the
/// shutdown timeout), then the background services, in reverse order.
public struct RPCCoreApplication: Service {
    let server: HTTP2CoreServer.Configuration
    let handler: HTTP2RequestHandler
    let services: [any Service]
    let shutdownTimeout: Duration
    let beforeShutdown: @Sendable () async -> Void
    let logger: Logger
    let onServerRunning: @Sendable (Int) async -> Void

    public func run() async throws {
        let listener = CoreServerListener(
            configuration: server, handler: handler, shutdownTimeout: shutdownTimeout, beforeShutdown: beforeShutdown,
            logger: logger, onServerRunning: onServerRunning)
        let group = ServiceGroup(
            configuration: .init(services: services + [listener], gracefulShutdownSignals: [], logger: logger))
        try await group.run()
    }
}
