import ChildProcesses
import Foundation
import Logging
import TestSupport
import Testing

/// A port chosen for a service can be taken by another test's service before it binds: the start must not mistake
/// the other service's answer for its own.
@Suite("ServiceProcess on a port another process holds")
struct ServiceProcessPortTests {
    let logger = Logger(label: "test.service-process-port")

    @Test("a given port held by another service fails the start, saying the port is taken, not ready")
    func givenPortTaken() async throws {
        let holder = try await startHolder()
        do {
            // The holder answers /health on this port at once: without the listener check this start "succeeds".
            let second = try await ServiceProcess.start(
                "auth-service", name: "port-second", environment: try Self.environment(),
                portVariable: "SECUREPUSH_AUTH_PORT", logger: logger, port: holder.port)
            await second.stop()
            Issue.record("a second service started on port \(holder.port), which the first holds")
        } catch let error as ServiceProcessError {
            #expect(error.portTaken, "\(error)")
        }
        await holder.stop()
    }

    @Test("a chosen port found taken: the service starts again on the next port chosen, and holds it")
    func chosenPortTakenRetries() async throws {
        let holder = try await startHolder()
        var chosen: [Int] = []
        let service = try await ServiceProcess.start(
            "auth-service", name: "port-retry", environment: try Self.environment(),
            portVariable: "SECUREPUSH_AUTH_PORT", logger: logger,
            choosePort: {
                let port = chosen.isEmpty ? holder.port : try LoopbackPort.free()
                chosen.append(port)
                return port
            })
        #expect(chosen.count == 2 && chosen.first == holder.port, "\(chosen)")
        #expect(service.port == chosen.last)
        #expect(LoopbackPort.isHeld(byProcess: service.process.processIdentifier, port: service.port) == true)
        await service.stop()
        await holder.stop()
    }

    /// An auth service on a port of its own, holding it.
    private func startHolder() async throws -> ServiceProcess {
        try await ServiceProcess.start(
            "auth-service", name: "port-holder", environment: try Self.environment(),
            portVariable: "SECUREPUSH_AUTH_PORT", logger: logger)
    }

    /// A service's environment with a data directory of its own (it goes with the test process's temporary root).
    private static func environment() throws -> [String: String] {
        ["SECUREPUSH_DATA_DIR": try TemporaryDirectory(prefix: "port-test").path]
    }
}
