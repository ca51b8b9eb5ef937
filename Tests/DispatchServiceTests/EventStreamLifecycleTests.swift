import Foundation
import SharedModels
import TestSupport
import Testing

@testable import DispatchService

@Suite("how long a direct event stream lives: caps, token expiry, ownership, and lost wake-ups")
struct EventStreamLifecycleTests {
    /// A harness whose keepalive is far beyond the waits below unless a test asks for a short one.
    static func harness(
        keepalive: Duration = .seconds(60), maxStreamsPerDevice: Int = DispatchConfiguration.defaultMaxStreamsPerDevice
    ) async throws -> DispatchHarness {
        var configuration = DispatchHarness.configuration(keepalive: keepalive)
        configuration.maxStreamsPerDevice = maxStreamsPerDevice
        return try await DispatchHarness(configuration: configuration)
    }

    @Test("a stream beyond the per-device cap closes the device's oldest stream")
    func capClosesOldest() async throws {
        let harness = try await Self.harness(maxStreamsPerDevice: 2)
        let device = try await harness.registerDevice(user: "alice")
        let alice = try await harness.signer.userToken("alice")
        let hub = harness.components.hub

        try await RunningDispatch.with(harness) { port in
            let oldest = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            defer { oldest.stop() }
            #expect(await eventually { await hub.streamCount(deviceID: device) == 1 })
            let middle = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            defer { middle.stop() }
            #expect(await eventually { await hub.streamCount(deviceID: device) == 2 })
            let newest = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            defer { newest.stop() }

            #expect(await oldest.waitUntil { !$0.isRunning })
            #expect(await hub.streamCount(deviceID: device) == 2)
            #expect(middle.isRunning)
            #expect(newest.isRunning)
            // The two streams left still get new ids.
            let sent = try await harness.send(to: "alice").notificationId
            #expect(await middle.waitUntil { $0.ids == [sent] })
            #expect(await newest.waitUntil { $0.ids == [sent] })
        }
    }

    @Test("a stream ends once the access token it was opened with has expired (by the service's clock)")
    func endsAtTokenExpiry() async throws {
        let harness = try await Self.harness(keepalive: .milliseconds(50))
        let device = try await harness.registerDevice(user: "alice")
        let alice = try await harness.signer.token(subject: "alice", scopes: [Scope.user], lifetime: 600)

        try await RunningDispatch.with(harness) { port in
            let curl = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            defer { curl.stop() }
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 1 })
            // Several keepalive ticks before expiry leave the stream open.
            let keepalives = curl.text.components(separatedBy: ": keepalive").count
            #expect(await curl.waitUntil { $0.text.components(separatedBy: ": keepalive").count > keepalives + 2 })
            #expect(curl.isRunning)

            // Well past `exp` (the token was signed by the real clock, a little after the test clock started).
            harness.clock.advance(by: 900)
            #expect(await curl.waitUntil { !$0.isRunning })
            #expect(await harness.components.hub.streamCount(deviceID: device) == 0)
        }
    }

    @Test("another user registering the same direct token leaves the owner's stream open, and moves nothing")
    func sameDirectTokenOfAnotherUser() async throws {
        let log = RecordedLog()
        var configuration = DispatchHarness.configuration(keepalive: .seconds(60))
        configuration.maxStreamsPerDevice = 2
        let harness = try await DispatchHarness(configuration: configuration, logger: log.logger())
        let device = try await harness.registerDevice(user: "alice", token: "shared-tablet")
        let alice = try await harness.signer.userToken("alice")

        try await RunningDispatch.with(harness) { port in
            let curl = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            defer { curl.stop() }
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 1 })
            #expect(try await harness.registerDevice(user: "bob", token: "shared-tablet") != device)
            // Sent to alice after bob's registration: it still reaches her open stream.
            let sent = try await harness.send(to: "alice").notificationId
            #expect(await curl.waitUntil { $0.text.contains(sent) })
            #expect(curl.isRunning)
            #expect(log.securityEvents("devices.owner_changed").isEmpty)
        }
    }

    @Test("another user's device and a missing one get the same status and the same body")
    func identicalNotFound() async throws {
        let harness = try await Self.harness()
        let device = try await harness.registerDevice(user: "alice")
        let bob = try await harness.signer.userToken("bob")

        try await RunningDispatch.with(harness) { port in
            let someoneElses = try await curlGet(EventStreamTests.url(port, device), token: bob)
            let missing = try await curlGet(EventStreamTests.url(port, UUID().uuidString.lowercased()), token: bob)
            #expect(someoneElses.status == 404)
            #expect(someoneElses.status == missing.status)
            #expect(someoneElses.body == missing.body)
        }
    }

    @Test("the service's one sweep wakes a stream whose wake-up was lost")
    func sweepFindsLostWakeUp() async throws {
        let harness = try await Self.harness()
        let device = try await harness.registerDevice(user: "alice")
        let alice = try await harness.signer.userToken("alice")
        let deliveries = SQLDeliveryRepository(database: harness.components.database.sql)
        let sweep = DirectSweep(
            hub: harness.components.hub, deliveries: deliveries, revocations: nil, now: { harness.clock.now },
            logger: .quiet)

        try await RunningDispatch.with(harness) { port in
            let curl = try CurlStream(url: EventStreamTests.url(port, device), token: alice)
            defer { curl.stop() }
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 1 })
            // The opening drain (after the stream is registered) must be over, or it would find the send below.
            #expect(await eventually { await harness.components.hub.drainingCount(deviceID: device) == 0 })
            #expect(try await sweep.run() == 0)

            // Recorded as another replica would, but its wake-up never arrives here.
            let lost = UUID().uuidString.lowercased()
            _ = try await deliveries.recordSend(
                SendRecord(
                    notificationID: lost, clientID: "app-backend", recipientID: "alice",
                    expiresAt: harness.clock.now.addingTimeInterval(3_600), createdAt: harness.clock.now),
                claim: nil)
            try await Task.sleep(for: .milliseconds(300))
            #expect(curl.ids.isEmpty)

            #expect(try await sweep.run() == 1)
            #expect(await curl.waitUntil { $0.ids == [lost] })
            // Written and recorded `sent`: the next sweep finds nothing to wake.
            #expect(try await eventually { try await sweep.run() == 0 })
        }
    }

    @Test("a signed-out session's stream ends at the next sweep, and its still-valid token opens no new stream")
    func logoutEndsStream() async throws {
        let log = RecordedLog()
        let harness = try await DispatchHarness(
            configuration: DispatchHarness.configuration(keepalive: .seconds(60)), logger: log.logger())
        let device = try await harness.registerDevice(user: "alice")
        let session = UUID().uuidString.lowercased()
        let signedOut = try await harness.signer.token(subject: "alice", scopes: [Scope.user], sessionID: session)
        let otherSession = try await harness.signer.token(
            subject: "alice", scopes: [Scope.user], sessionID: UUID().uuidString.lowercased())

        try await RunningDispatch.with(harness) { port in
            let revoked = try CurlStream(url: EventStreamTests.url(port, device), token: signedOut)
            defer { revoked.stop() }
            let kept = try CurlStream(url: EventStreamTests.url(port, device), token: otherSession)
            defer { kept.stop() }
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 2 })

            try await harness.components.sweep.run()
            #expect(revoked.isRunning)
            harness.auth.revoke(sessionID: session)
            try await harness.components.sweep.run()
            #expect(await revoked.waitUntil { !$0.isRunning })
            #expect(kept.isRunning)
            #expect(await harness.components.hub.streamCount(deviceID: device) == 1)
            let revokedEvent = try #require(log.securityEvents("direct.streams.session_revoked").only)
            #expect(revokedEvent.metadata["session.id"] == "\(session)")
            #expect(revokedEvent.metadata["direct.streams"] == "1")
            // The next call asks only for what is new.
            #expect(harness.auth.revocationCalls.first?.since == nil)
            #expect(harness.auth.revocationCalls.last?.since != nil)

            let (status, body) = try await curlGet(EventStreamTests.url(port, device), token: signedOut)
            #expect(status == 401)
            #expect(body.contains("\(RPCErrorCode.unauthenticated)"))
        }
    }
}
