import Logging
import ServiceCore
import ServiceLifecycle

/// One service application running in its own `ServiceGroup`, with the port it bound; stopped gracefully on `stop()`.
public final class RunningService: Sendable {
    /// The service's name.
    public let name: String
    /// The port it listens on (the real one when it was asked for port 0).
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(name: String, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.name = name
        self.port = port
        self.group = group
        self.task = task
    }

    /// Plans and starts a service, returning once it listens.
    /// - Parameter plan: plans the service (`AuthPlan.make`…), given the callback its application calls with its
    ///   bound port.
    public static func start(
        name: String,
        logger: Logger,
        plan: (@escaping @Sendable (Int) async -> Void) async throws -> ServiceRunner.Plan
    ) async throws -> RunningService {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let services = try await plan { port in continuation.yield(port) }.services
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            do {
                try await task.value  // it stopped before listening: surface why
            } catch let error as ConfigurationError {
                throw error  // refused, naming the variable: said as is
            } catch {
                throw StackError("\(name) could not start: \(error)")
            }
            throw StackError("\(name) stopped before it started listening")
        }
        return RunningService(name: name, port: port, group: group, task: task)
    }

    /// Shuts the service down gracefully and waits until it has stopped.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// Waits until the service stops by itself (or its task fails).
    public func wait() async throws {
        try await task.value
    }
}

/// The stack could not start; the message says why.
public struct StackError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
