import DispatchService
import Foundation
import Logging
import RPCServer
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// push-dispatch served over a real socket (127.0.0.1, an ephemeral port, cleartext HTTP/2) around a harness's
/// components, so RPCs can go in-process while devices read the event stream with curl.
enum RunningDispatch {
    private final class Flag: Sendable {
        let value = Mutex(false)
    }

    /// Starts the application, runs `body` with its port, then shuts it down gracefully.
    /// Returns whether the graceful shutdown finished within `shutdownTimeout`.
    @discardableResult
    static func with(
        _ harness: DispatchHarness,
        shutdownTimeout: Duration = .seconds(10),
        metrics: ServiceMetrics = .disabled,
        _ body: (Int) async throws -> Void
    ) async throws -> Bool {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = try buildDispatchApplication(
            components: harness.components, configuration: harness.configuration, logger: .quiet, metrics: metrics
        ) { port in
            portContinuation.yield(port)
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: .quiet))
        let stopped = Flag()
        let run = Task {
            defer {
                stopped.value.withLock { $0 = true }
                portContinuation.finish()
            }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await run.value
            Issue.record("push-dispatch stopped before listening")
            return false
        }
        do {
            try await body(port)
        } catch {
            await group.triggerGracefulShutdown()
            run.cancel()
            throw error
        }
        await group.triggerGracefulShutdown()
        let inTime = await eventually(timeout: shutdownTimeout) { stopped.value.withLock { $0 } }
        if !inTime { run.cancel() }
        _ = try? await run.value
        return inTime
    }
}
