import DispatchService
import Foundation
import SharedModels
import Testing

@Suite("Deactivation of devices a provider reports gone")
struct DeactivationTests {
    @Test(
        "deactivate: the delivery ends deactivated, the device is listed inactive, not targeted, and back once re-registered"
    )
    func deactivate() async throws {
        let provider = ScriptedProvider(script: [.deactivate(reason: "UNREGISTERED")])
        let harness = try await DispatchHarness.remote([provider])
        let device = try await harness.registerDevice(user: "alice", platform: .apns, token: "d0d0")
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .deactivated))
            let delivery = try #require(try await harness.delivery(sent))
            #expect(delivery.attempts == 1)
            #expect(delivery.lastError == "UNREGISTERED")
            #expect(try await harness.isActive(device, user: "alice") == false)
            #expect(try await harness.send(to: "alice").deliveries.isEmpty)

            _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "d0d0")
            #expect(try await harness.isActive(device, user: "alice") == true)
            provider.script(.sent)
            let again = try await harness.send(to: "alice")
            #expect(again.deliveries.map(\.deviceId) == [device])
            #expect(try await harness.waitForStatus(again.notificationId, .sent))
        }
        #expect(provider.jobs.count == 2)
    }

    @Test("the device's other waiting jobs end deactivated with it and are never attempted")
    func otherJobsOfTheDeviceEnd() async throws {
        let provider = ScriptedProvider(script: [.deactivate(reason: "Unregistered")])
        let harness = try await DispatchHarness.remote([provider], delivery: .fast(concurrency: 1))
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "e1e1")
        let first = try await harness.send(to: "alice").notificationId
        let second = try await harness.send(to: "alice").notificationId
        let third = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            for id in [first, second, third] { #expect(try await harness.waitForStatus(id, .deactivated)) }
            try await Task.sleep(for: .milliseconds(200))
        }
        // One attempt only (the script has one outcome; a second call would fail the test).
        #expect(provider.jobs.count == 1)
        let untried = try await [second, third].asyncMap { try await harness.delivery($0) }
        #expect(untried.map { $0?.attempts } == [0, 0])
        #expect(untried.map { $0?.lastError } == ["Unregistered", "Unregistered"])
    }

    @Test("gone since a date after the last registration: the device is deactivated")
    func goneAfterRegistration() async throws {
        let clock = LiveClock()
        let provider = ScriptedProvider()
        let harness = try await DispatchHarness.remote([provider], clock: clock)
        let device = try await harness.registerDevice(user: "alice", platform: .apns, token: "f2f2")
        clock.advance(by: 10)
        provider.script(.deactivateIfRegisteredBefore(clock.now, reason: "Unregistered"))
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .deactivated))
        }
        #expect(try await harness.delivery(sent)?.lastError == "Unregistered")
        #expect(try await harness.isActive(device, user: "alice") == false)
        #expect(try await harness.send(to: "alice").deliveries.isEmpty)
    }

    @Test("gone since a date before the device registered again: it stays active and the delivery fails")
    func reRegisteredSince() async throws {
        let clock = LiveClock()
        let provider = ScriptedProvider()
        let harness = try await DispatchHarness.remote([provider], clock: clock)
        let goneSince = clock.now
        clock.advance(by: 10)
        // The app registered its (same) token again after APNs saw it unregistered.
        let device = try await harness.registerDevice(user: "alice", platform: .apns, token: "a3a3")
        provider.script(.deactivateIfRegisteredBefore(goneSince, reason: "Unregistered"), .sent)
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(try await harness.waitForStatus(sent, .failed))
            #expect(try await harness.delivery(sent)?.lastError == "Unregistered")
            #expect(try await harness.isActive(device, user: "alice") == true)
            let next = try await harness.send(to: "alice")
            #expect(next.deliveries.map(\.deviceId) == [device])
            #expect(try await harness.waitForStatus(next.notificationId, .sent))
        }
    }
}

extension Sequence {
    /// `map` with an async transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
