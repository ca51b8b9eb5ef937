import HTTP2Core
import Logging
import ServiceLifecycle

/// A server on the HTTP/2 core as a service: listens until graceful shutdown (or cancellation), then shuts down:
/// GOAWAY (or, on HTTP/1.1, `Connection: close`) on every connection, in-flight requests finish within the timeout.
struct CoreServerListener: Service {
    let configuration: HTTP2CoreServer.Configuration
    let handler: HTTP2RequestHandler
    let shutdownTimeout: Duration
    /// Runs as the listener shuts down, to end what would otherwise hold connections open (e.g. event streams).
    var beforeShutdown: @Sendable () async -> Void = {}
    let logger: Logger
    /// Called with the bound port once listening.
    var onServerRunning: @Sendable (Int) async -> Void = { _ in }

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
