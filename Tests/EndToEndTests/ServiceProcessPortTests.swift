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
        let (holder, environment) = try await startHolder()
        do {
            // The holder answers /health on this port at once: without the listener check this start "succeeds".
            let second = try await ServiceProcess.start(
                "auth-service", name: "port-second", environment: environment, portVariable: "SECUREPUSH_AUTH_PORT",
                logger: logger, port: holder.port)
            await second.stop()
            Issue.record("a second service started on port \(holder.port), which the first holds")
        } catch let error as ServiceProcessError {
            #expect(error.portTaken, "\(error)")
        }
        await holder.stop()
    }

    @Test("a chosen port found taken: the service starts again on the next port chosen, and holds it")
    func chosenPortTakenRetries() async throws {
        let (holder, environment) = try await startHolder()
        var chosen: [Int] = []
        let service = try await ServiceProcess.start(
            "auth-service", name: "port-retry", environment: environment, portVariable: "SECUREPUSH_AUTH_PORT",
            logger: logger,
            choosePort: {
                let port = chosen.isEmpty ? holder.port : try ServiceProcess.freePort()
                chosen.append(port)
                return port
            })
        #expect(chosen.count == 2 && chosen.first == holder.port, "\(chosen)")
        #expect(service.port == chosen.last)
        #expect(LoopbackListener.isHeld(byProcess: service.process.processIdentifier, port: service.port) == true)
        await service.stop()
        await holder.stop()
    }

    /// An auth service on a port of its own, holding it, and the environment it runs with (its data directory goes
    /// with the test process's temporary root).
    private func startHolder() async throws -> (ServiceProcess, [String: String]) {
        let environment = ["SECUREPUSH_DATA_DIR": try TemporaryDirectory(prefix: "port-holder").path]
        let holder = try await ServiceProcess.start(
            "auth-service", name: "port-holder", environment: environment, portVariable: "SECUREPUSH_AUTH_PORT",
            logger: logger)
        return (holder, environment)
    }
}
