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
        let listener = Listener(
            configuration: server, handler: handler, shutdownTimeout: shutdownTimeout, beforeShutdown: beforeShutdown,
            logger: logger, onServerRunning: onServerRunning)
        let group = ServiceGroup(
            configuration: .init(services: services + [listener], gracefulShutdownSignals: [], logger: logger))
        try await group.run()
    }

    /// The core server as a service: listens until graceful shutdown (or cancellation), then shuts down.
    private struct Listener: Service {
        let configuration: HTTP2CoreServer.Configuration
        let handler: HTTP2RequestHandler
        let shutdownTimeout: Duration
        let beforeShutdown: @Sendable () async -> Void
        let logger: Logger
        let onServerRunning: @Sendable (Int) async -> Void

        func run() async throws {
            let server = try await HTTP2CoreServer.start(configuration: configuration, logger: logger, handler: handler)
            await onServerRunning(server.port)
            // Returns on graceful shutdown, throws on cancellation: either way the server goes away.
            try? await gracefulShutdown()
            async let drained: Void = server.shutdown(timeout: shutdownTimeout)
            await beforeShutdown()
            await drained
        }
    }
}
