import Foundation
import NIOCore
import SharedModels
import Synchronization
import TestSupport
import Testing

@testable import DispatchService

@Suite("an idle direct event stream costs no database work")
struct IdleStreamTests {
    /// A response body that keeps what the stream wrote.
    struct RecordingWriter: EventStreamWriter {
        final class Written: Sendable {
            let text = Mutex("")
            var keepalives: Int { text.withLock { $0.components(separatedBy: ": keepalive\n\n").count - 1 } }
        }
        let written: Written

        func send(_ buffer: ByteBuffer) async throws {
            written.text.withLock { $0 += String(buffer: buffer) }
        }

        func end() {}

        func onClose(_ callback: @escaping @Sendable () -> Void) {}  // the test's writer never closes
    }

    @Test("keepalive ticks read and write nothing: only a wake-up makes the stream read its pending jobs")
    func keepalivesTouchNoDatabase() async throws {
        let harness = try await DispatchHarness()
        let deviceID = try await harness.registerDevice(user: "alice")
        let devices = CountingDevices(SQLDeviceRepository(database: harness.components.database.sql))
        let deliveries = CountingDeliveries(SQLDeliveryRepository(database: harness.components.database.sql))
        let hub = DirectHub()
        let stream = DirectEventStream(
            deviceID: deviceID, ownerID: "alice", expiresAt: nil, sessionID: nil, devices: devices,
            deliveries: deliveries, hub: hub,
            keepaliveInterval: .milliseconds(20), now: { harness.clock.now }, logger: .quiet)
        let written = RecordingWriter.Written()

        let running = Task {
            try await stream.run(writer: RecordingWriter(written: written))
        }
        defer { running.cancel() }
        #expect(await eventually { written.keepalives >= 1 })
        let (deviceCalls, deliveryCalls) = (devices.calls, deliveries.calls)
        #expect(await eventually { written.keepalives >= 6 })
        #expect(devices.calls == deviceCalls)
        #expect(deliveries.calls == deliveryCalls)

        // A wake-up reads (and records) again, and the id is written.
        let sent = try await harness.send(to: "alice").notificationId
        #expect(await hub.wake(deviceIDs: [deviceID]) == 1)
        #expect(await eventually { written.text.withLock { $0.contains("id: \(sent)") } })
        #expect(deliveries.calls > deliveryCalls)

        await hub.closeAll()
        try await running.value
    }
}
