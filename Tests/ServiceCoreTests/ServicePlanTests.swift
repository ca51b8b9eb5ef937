import HTTP2Client
import Logging
import ServiceCore
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// The one shape every service is planned in: resources first, the application built when the group starts it,
/// stopped in reverse; peer clients are resources like the database.
@Suite("Service plans")
struct ServicePlanTests {
    /// What happened, in order.
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Records its start and, after graceful shutdown, its stop.
    struct RecordingService: Service {
        let name: String
        let journal: Journal

        func run() async throws {
            journal.add("\(name) started")
            try? await gracefulShutdown()
            journal.add("\(name) stopped")
        }
    }

    let logger = Logger(label: "test.plan")

    /// A database resource and an application, both recording into `journal`, the application's build too.
    static func recordingPlan(_ journal: Journal) -> ServiceRunner.Plan {
        ServiceRunner.Plan(
            resources: [RecordingService(name: "database", journal: journal)],
            application: {
                journal.add("application built")
                return RecordingService(name: "application", journal: journal)
            },
            shutdownTimeout: .seconds(5))
    }

    @Test("the application is built when the group starts it, not while planning, and its resources stop after it")
    func buildsAfterResources() async throws {
        let journal = Journal()
        let plan = Self.recordingPlan(journal)
        #expect(journal.all.isEmpty)
        let group = ServiceGroup(
            configuration: .init(services: plan.services, gracefulShutdownSignals: [], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(
                await eventually {
                    journal.all.contains("application started") && journal.all.contains("database started")
                })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // The group starts its services together: only what happens after the build, and the stop order, are fixed.
        let entries = journal.all
        #expect(entries.count == 5)
        #expect(Set(entries.prefix(3)) == ["database started", "application built", "application started"])
        #expect(entries.firstIndex(of: "application built")! < entries.firstIndex(of: "application started")!)
        #expect(entries.suffix(2) == ["application stopped", "database stopped"])
    }

    @Test("a hook for the end of start-up runs once, after the application is built and before it runs")
    func hookAfterBuild() async throws {
        let journal = Journal()
        let plan = Self.recordingPlan(journal)
            .whenApplicationBuilt { journal.add("start-up over") }
            .whenApplicationBuilt { journal.add("start-up over, second hook") }
        #expect(journal.all.isEmpty)
        let group = ServiceGroup(
            configuration: .init(services: plan.services, gracefulShutdownSignals: [], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(await eventually { journal.all.contains("application started") })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let application = journal.all.filter { !$0.hasPrefix("database") }
        #expect(
            application == [
                "application built", "start-up over", "start-up over, second hook", "application started",
                "application stopped",
            ])
    }

    @Test("a plan whose application cannot be built never runs the hook")
    func noHookWithoutBuild() async throws {
        let journal = Journal()
        let plan = ServiceRunner.Plan(
            resources: [], application: { throw ConfigurationError("SECUREPUSH_EXAMPLE is wrong") },
            shutdownTimeout: .seconds(5)
        )
        .whenApplicationBuilt { journal.add("start-up over") }
        let group = ServiceGroup(
            configuration: .init(services: plan.services, gracefulShutdownSignals: [], logger: logger))
        await #expect(throws: ConfigurationError.self) { try await group.run() }
        #expect(journal.all.isEmpty)
    }

    @Test("an application that cannot be built ends the group with its error, and its resources stop")
    func buildFailureEndsGroup() async throws {
        let journal = Journal()
        let plan = ServiceRunner.Plan(
            resources: [RecordingService(name: "database", journal: journal)],
            application: { throw ConfigurationError("SECUREPUSH_EXAMPLE is wrong") },
            shutdownTimeout: .seconds(5))
        let group = ServiceGroup(
            configuration: .init(services: plan.services, gracefulShutdownSignals: [], logger: logger))
        let error = await #expect(throws: ConfigurationError.self) { try await group.run() }
        #expect(error?.description == "SECUREPUSH_EXAMPLE is wrong")
        #expect(journal.all == ["database started", "database stopped"])
    }

    @Test("a peer client closes its connection when its group shuts down, not before")
    func peerClientIsALifecycleService() async throws {
        // Nothing needs to listen: a call before shutdown fails to connect, one after it is refused as shut down.
        let peer = try PeerClient(url: "http://127.0.0.1:9", peerName: "auth", caFile: nil, logger: logger)
        let request = HTTP2Request(path: "/health", timeout: .seconds(2))
        let group = ServiceGroup(configuration: .init(services: [peer], gracefulShutdownSignals: [], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let running = await #expect(throws: HTTP2ClientError.self) { try await peer.http.execute(request) }
            #expect(running != .shutdown)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let stopped = await #expect(throws: HTTP2ClientError.self) { try await peer.http.execute(request) }
        #expect(stopped == .shutdown)
    }

    @Test("a peer URL setting is checked by the production policy, naming it")
    func peerFromSetting() throws {
        _ = try PeerClient.auth(
            environment: ServiceEnvironment(["SECUREPUSH_ENV": "production"]), logger: logger, tracer: nil)
        let error = #expect(throws: ConfigurationError.self) {
            try PeerClient.auth(
                environment: ServiceEnvironment([
                    "SECUREPUSH_ENV": "production", "SECUREPUSH_AUTH_URL": "http://auth.internal:8081",
                ]), logger: logger, tracer: nil)
        }
        #expect(error?.description.hasPrefix("SECUREPUSH_AUTH_URL=http://auth.internal:8081 is cleartext") == true)
    }
}
