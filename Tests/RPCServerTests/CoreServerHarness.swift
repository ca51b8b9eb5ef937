import JSONRPC
import Logging
import RPCServer
import ServiceLifecycle
import TestSupport
import Tracing

/// `test.whoami`: what the server read off the request (bearer token, client address, device proof).
struct WhoAmI: RPCMethod {
    struct Result: Codable, Sendable, Equatable {
        var bearer: String?
        var clientAddress: String?
        var deviceProof: String?
    }
    typealias Params = [String]
    static let name = "test.whoami"
}

/// `test.sum`: adds its params.
struct Sum: RPCMethod {
    typealias Params = [Int]
    typealias Result = Int
    static let name = "test.sum"
}

/// `test.slow`: answers after its param in milliseconds.
struct Slow: RPCMethod {
    typealias Params = [Int]
    typealias Result = Int
    static let name = "test.slow"
}

/// `test.intask`: whether the handler that answered ran in a Swift task. An immediate handler answers unless its
/// param is 0; the async handler always runs in one. Both log `test.intask` with the request's logger.
struct InTask: RPCMethod {
    typealias Params = [Int]
    typealias Result = Bool
    static let name = "test.intask"
}

/// A service built by ``RPCServerBuilder/buildApplication`` on port 0, running in its own service group.
struct CoreServerHarness {
    let port: Int
    let group: ServiceGroup
    let task: Task<Void, any Error>

    /// The service's `http://127.0.0.1:PORT` (or `https://localhost:PORT` with TLS).
    var url: String

    /// Fires when a `test.slow` call starts.
    let slowCallStarted: Signal

    /// Starts a service with `test.whoami`, `test.sum`, `test.intask` and `test.slow`, runs `body` with it, and stops it gracefully.
    static func with<T>(
        configuration: RPCServerConfiguration = RPCServerConfiguration(port: 0),
        health: @escaping @Sendable () async -> [String: String] = { ["database": "ok"] },
        metrics: ServiceMetrics = .disabled,
        tracer: (any Tracer)? = nil,
        routes: [RPCServerRoute] = [],
        logger: Logger = .quiet,
        _ body: (CoreServerHarness) async throws -> T
    ) async throws -> T {
        let harness = try await start(
            configuration: configuration, health: health, metrics: metrics, tracer: tracer, routes: routes,
            logger: logger)
        do {
            let result = try await body(harness)
            await harness.stop()
            return result
        } catch {
            await harness.stop()
            throw error
        }
    }

    static func start(
        configuration: RPCServerConfiguration, health: @escaping @Sendable () async -> [String: String],
        metrics: ServiceMetrics, tracer: (any Tracer)?, routes: [RPCServerRoute], logger: Logger = .quiet
    ) async throws -> CoreServerHarness {
        let slowCallStarted = Signal()
        var dispatcher = RPCDispatcher()
        dispatcher.register(WhoAmI.self) { _, context in
            WhoAmI.Result(
                bearer: context.bearerToken, clientAddress: context.clientAddress, deviceProof: context.deviceProof)
        }
        dispatcher.register(Sum.self) { params, _ in params.reduce(0, +) }
        dispatcher.register(InTask.self) { _, context in
            context.logger.info("test.intask")
            return withUnsafeCurrentTask { $0 != nil }
        }
        dispatcher.registerImmediate(InTask.self) { params, context in
            guard params.first != 0 else { return nil }
            context.logger.info("test.intask")
            return withUnsafeCurrentTask { $0 != nil }
        }
        dispatcher.register(Slow.self) { params, _ in
            slowCallStarted.fire()
            try await Task.sleep(for: .milliseconds(params.first ?? 0))
            return params.first ?? 0
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try RPCServerBuilder.buildApplication(
            serviceName: "test-service", dispatcher: dispatcher, configuration: configuration, health: health,
            logger: logger, metrics: metrics, tracer: tracer, routes: routes,
            onServerRunning: { continuation.yield($0) })
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: .quiet))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw HarnessError()
        }
        let url = configuration.tls == nil ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)"
        return CoreServerHarness(
            port: port, group: group, task: task, url: url, slowCallStarted: slowCallStarted)
    }

    /// Shuts the service down gracefully and waits for it.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// The service stopped before it listened.
    struct HarnessError: Error {}
}
