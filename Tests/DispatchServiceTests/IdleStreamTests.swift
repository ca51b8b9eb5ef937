import Foundation
import NIOCore
import SharedModels
import Synchronization
import TestSupport
import Testing

@testable import DispatchService

@Suite("an idle direct event stream is no task and costs no database work")
struct IdleStreamTests {
    /// A response body that keeps what the stream wrote. A stalled one is a reader that takes nothing: its writes
    /// and posts wait until `release()`.
    final class RecordingWriter: EventStreamWriter {
        private struct State {
            var text = ""
            var posts = 0
            var ended = false
            var released = false
            var waiting: [CheckedContinuation<Void, Never>] = []
            /// Posts of a stalled writer, completed on `release()`.
            var held: [(ByteBuffer, @Sendable (Bool) -> Void)] = []
        }
        let stalled: Bool
        private let state = Mutex(State())

        init(stalled: Bool = false) {
            self.stalled = stalled
        }

        var text: String { state.withLock { $0.text } }
        var keepalives: Int { text.components(separatedBy: ": keepalive\n\n").count - 1 }
        /// Keepalives handed to the writer, taken or not.
        var posts: Int { state.withLock { $0.posts } }
        var ended: Bool { state.withLock { $0.ended } }

        func send(_ buffer: ByteBuffer) async throws {
            if stalled {
                await withCheckedContinuation { continuation in
                    let go = state.withLock { state -> Bool in
                        if !state.released { state.waiting.append(continuation) }
                        return state.released
                    }
                    if go { continuation.resume() }
                }
            }
            state.withLock { $0.text += String(buffer: buffer) }
        }

        func post(_ buffer: ByteBuffer, completion: @escaping @Sendable (Bool) -> Void) {
            let now = state.withLock { state -> Bool in
                state.posts += 1
                guard stalled && !state.released else { return true }
                state.held.append((buffer, completion))
                return false
            }
            guard now else { return }
            state.withLock { $0.text += String(buffer: buffer) }
            completion(true)
        }

        func end() { state.withLock { $0.ended = true } }

        func reset() { state.withLock { $0.ended = true } }

        func onClose(_ callback: @escaping @Sendable () -> Void) {}  // the test's writer never closes by itself

        /// Lets the stalled writes through.
        func release() {
            let (waiting, held) = state.withLock { state in
                state.released = true
                defer {
                    state.waiting = []
                    state.held = []
                }
                return (state.waiting, state.held)
            }
            for continuation in waiting { continuation.resume() }
            for (buffer, completion) in held {
                state.withLock { $0.text += String(buffer: buffer) }
                completion(true)
            }
        }
    }

    static func stream(
        _ deviceID: String, owner: String, harness: DispatchHarness, hub: DirectHub,
        devices: any DeviceRepository, deliveries: any DeliveryRepository
    ) -> DirectEventStream {
        DirectEventStream(
            deviceID: deviceID, ownerID: owner, expiresAt: nil, sessionID: nil, devices: devices,
            deliveries: deliveries, hub: hub, now: { harness.clock.now }, logger: .quiet)
    }

    static func harness(maxDevicesPerUser: Int = 20) async throws -> DispatchHarness {
        var configuration = DispatchHarness.configuration()
        configuration.maxDevicesPerUser = maxDevicesPerUser
        return try await DispatchHarness(configuration: configuration)
    }

    @Test("keepalive ticks read and write nothing: only a wake-up makes the stream read its pending jobs")
    func keepalivesTouchNoDatabase() async throws {
        let harness = try await Self.harness()
        let deviceID = try await harness.registerDevice(user: "alice")
        let devices = CountingDevices(SQLDeviceRepository(database: harness.components.database.sql))
        let deliveries = CountingDeliveries(SQLDeliveryRepository(database: harness.components.database.sql))
        let hub = DirectHub()
        let writer = RecordingWriter()

        // `start` returns once the stream is open and drained: nothing waits on an idle stream.
        let live = try #require(
            await Self.stream(
                deviceID, owner: "alice", harness: harness, hub: hub, devices: devices, deliveries: deliveries
            ).start(writer: writer))
        #expect(!live.isClosed)
        let (deviceCalls, deliveryCalls) = (devices.calls, deliveries.calls)
        for _ in 0..<6 { #expect(await hub.keepalive() == 1) }
        #expect(await eventually { writer.keepalives == 6 })
        #expect(devices.calls == deviceCalls)
        #expect(deliveries.calls == deliveryCalls)

        // A wake-up reads (and records) again, and the id is written.
        let sent = try await harness.send(to: "alice").notificationId
        #expect(await hub.wake(deviceIDs: [deviceID]) == 1)
        #expect(await eventually { writer.text.contains("id: \(sent)") })
        #expect(deliveries.calls > deliveryCalls)

        await hub.closeAll()
        #expect(await eventually { writer.ended })
        #expect(live.isClosed)
    }

    @Test("one keepalive tick reaches 200 idle streams, and one wake-up each delivers a send to all of them")
    func sharedKeepaliveReachesEveryStream() async throws {
        let harness = try await Self.harness(maxDevicesPerUser: 200)
        let repositories = (
            devices: SQLDeviceRepository(database: harness.components.database.sql),
            deliveries: SQLDeliveryRepository(database: harness.components.database.sql)
        )
        let hub = DirectHub()
        var writers: [RecordingWriter] = []
        var deviceIDs: [String] = []
        for _ in 0..<200 {
            let deviceID = try await harness.registerDevice(user: "alice")
            let writer = RecordingWriter()
            let live = await Self.stream(
                deviceID, owner: "alice", harness: harness, hub: hub, devices: repositories.devices,
                deliveries: repositories.deliveries
            ).start(writer: writer)
            #expect(live != nil)
            writers.append(writer)
            deviceIDs.append(deviceID)
        }

        #expect(await hub.keepalive() == 200)
        #expect(await hub.keepalive() == 200)
        #expect(await eventually { writers.allSatisfy { $0.keepalives == 2 } })

        let sent = try await harness.send(to: "alice").notificationId
        #expect(await hub.wake(deviceIDs: deviceIDs) == 200)
        #expect(await eventually { writers.allSatisfy { $0.text.contains("id: \(sent)") } })
        await hub.closeAll()
        #expect(await eventually { writers.allSatisfy(\.ended) })
    }

    @Test("a reader that takes nothing holds one keepalive and its own drain, and stalls no other stream")
    func slowReaderStallsNoOne() async throws {
        let harness = try await Self.harness()
        let repositories = (
            devices: SQLDeviceRepository(database: harness.components.database.sql),
            deliveries: SQLDeliveryRepository(database: harness.components.database.sql)
        )
        let hub = DirectHub()
        let slow = RecordingWriter(stalled: true)
        let others = [RecordingWriter(), RecordingWriter()]
        var devices: [String] = []
        for writer in [slow] + others {
            let deviceID = try await harness.registerDevice(user: "alice")
            devices.append(deviceID)
            _ = await Self.stream(
                deviceID, owner: "alice", harness: harness, hub: hub, devices: repositories.devices,
                deliveries: repositories.deliveries
            ).start(writer: writer)
        }

        for _ in 0..<3 { await hub.keepalive() }
        #expect(await eventually { others.allSatisfy { $0.keepalives == 3 } })
        #expect(slow.posts == 1)  // the first is still on its way: no second one is queued behind it

        // A send wakes all three: the slow stream's write waits for its reader, the others get the id at once (their
        // batch records them after a short grace) and keep their keepalives.
        let sent = try await harness.send(to: "alice").notificationId
        #expect(await hub.wake(deviceIDs: devices) == 3)
        #expect(await eventually { others.allSatisfy { $0.text.contains("id: \(sent)") } })
        #expect(
            await eventually {
                await hub.keepalive()  // ticks that come while the batch still waits for the slow write skip them
                return others.allSatisfy { $0.keepalives >= 4 }
            })
        #expect(!slow.text.contains(sent))

        // Once the reader takes what was written, its id is there too, recorded by itself; closing ends every body.
        slow.release()
        #expect(await eventually { slow.text.contains("id: \(sent)") })
        #expect(try await eventually { try await harness.status(sent).deliveries.allSatisfy { $0.status == .sent } })
        await hub.closeAll()
        #expect(await eventually { ([slow] + others).allSatisfy(\.ended) })
    }
}
