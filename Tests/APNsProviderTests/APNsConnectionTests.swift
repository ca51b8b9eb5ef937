import APNsMock
import DispatchService
import Foundation
import TestSupport
import Testing

@Suite("The APNs connection")
struct APNsConnectionTests {
    @Test(
        "concurrent deliveries share one connection, also beyond the server's 100 concurrent streams",
        arguments: [50, 150]
    )
    func concurrentDeliveriesShareOneConnection(count: Int) async throws {
        try await withAPNsMock { mock in
            let outcomes = try await withProvider(mock.configuration()) { provider in
                await withTaskGroup(of: DeliveryOutcome.self) { group in
                    for index in 0..<count {
                        group.addTask { await provider.deliver(makeJob(token: deviceToken(1000 + index))) }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(outcomes.count == count)
            #expect(outcomes.allSatisfy { $0 == .sent })
            #expect(mock.state.requests.count == count)
            #expect(mock.connections.count == 1)
        }
    }

    @Test("after APNs sends GOAWAY, the next delivery opens a new connection")
    func goAway() async throws {
        try await withAPNsMock { mock in
            try await withProvider(mock.configuration()) { provider in
                #expect(await provider.deliver(makeJob(token: deviceToken(1))) == .sent)
                try await mock.connections.sendGoAway(lastStreamID: 1)
                // An idle client closes a connection that received GOAWAY.
                #expect(await eventually { mock.connections.openCount == 0 })
                #expect(await provider.deliver(makeJob(token: deviceToken(2))) == .sent)
            }
            #expect(mock.connections.count == 2)
            #expect(mock.state.requests.count == 2)
        }
    }

    @Test("after APNs restarts, the next delivery reconnects")
    func restart() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let key = APNsTestKey()
        let state = APNsMockState()
        let (configuration, port) = try await withAPNsMock(key: key, state: state, certificates: certificates) {
            mock in (mock.configuration(), mock.port)
        }
        let provider = try APNsProvider(configuration: configuration, logger: .quiet)
        try await withAPNsMock(key: key, port: port, state: state, certificates: certificates) { mock in
            #expect(await provider.deliver(makeJob(token: deviceToken(1))) == .sent)
            #expect(mock.connections.count == 1)
        }
        // The mock shut down gracefully (GOAWAY, close); a new one on the same port gets the next delivery.
        try await withAPNsMock(key: key, port: port, state: state, certificates: certificates) { mock in
            #expect(await provider.deliver(makeJob(token: deviceToken(2))) == .sent)
            #expect(mock.connections.count == 1)
        }
        await provider.shutdown()
        #expect(state.requests.count == 2)
    }

    @Test("after the connection drops without GOAWAY, the next delivery reconnects")
    func droppedConnection() async throws {
        try await withAPNsMock { mock in
            try await withProvider(mock.configuration()) { provider in
                #expect(await provider.deliver(makeJob(token: deviceToken(1))) == .sent)
                await mock.connections.closeAll()
                #expect(await provider.deliver(makeJob(token: deviceToken(2))) == .sent)
            }
            #expect(mock.connections.count == 2)
        }
    }

    @Test("the connection check PINGs APNs and reports a connection that went silent")
    func checkConnection() async throws {
        let blackHole = BlackHole()
        try await withAPNsMock(blackHole: blackHole) { mock in
            var configuration = mock.configuration()
            configuration.pingTimeout = .seconds(5)
            try await withProvider(configuration) { provider in
                // No connection yet: nothing to check, nothing wrong.
                #expect(await provider.checkConnection())
                #expect(await provider.deliver(makeJob(token: deviceToken(1))) == .sent)
                #expect(await provider.checkConnection())
                blackHole.swallow()
                #expect(await provider.checkConnection() == false)
                // The silent connection was given up: the next delivery does not wait on it.
                #expect(await provider.deliver(makeJob(token: deviceToken(2))) == .sent)
            }
            #expect(mock.connections.count == 2)
        }
    }

    @Test("the periodic PING gives up a connection that died silently before the next delivery needs it")
    func periodicPing() async throws {
        let blackHole = BlackHole()
        let log = RecordedLog()
        try await withAPNsMock(blackHole: blackHole) { mock in
            var configuration = mock.configuration()
            configuration.pingInterval = .milliseconds(100)
            configuration.pingTimeout = .seconds(5)
            configuration.requestTimeout = .seconds(10)
            try await withProvider(configuration, logger: log.logger()) { provider in
                #expect(await provider.deliver(makeJob(token: deviceToken(1))) == .sent)
                #expect(await eventually { log.count("apns.ping") > 0 })
                blackHole.swallow()
                #expect(await eventually { log.count("apns.ping.failed") > 0 })
                // On the dead connection this delivery would wait out its 10-second timeout and be retried.
                #expect(await provider.deliver(makeJob(token: deviceToken(2))) == .sent)
            }
            #expect(mock.connections.count == 2)
            #expect(mock.state.requests.count == 2)
        }
    }
}
