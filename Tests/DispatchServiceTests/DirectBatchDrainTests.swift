import Foundation
import SharedModels
import TestSupport
import Testing

@testable import DispatchService

/// A wake-up of more streams than one batch (``DirectBatchDrain/batchSize``) is drained batch after batch, pipelined:
/// a batch waiting for its record does not hold back the next batch's writes.
@Suite("the direct channel's batch drain")
struct DirectBatchDrainTests {
    @Test("a wake-up of 600 streams writes the second batch while the first batch's record waits, then records both")
    func batchesArePipelined() async throws {
        let count = DirectBatchDrain.batchSize + 100
        let harness = try await IdleStreamTests.harness(maxDevicesPerUser: count)
        let devices = SQLDeviceRepository(database: harness.components.database.sql)
        let deliveries = CountingDeliveries(SQLDeliveryRepository(database: harness.components.database.sql))
        let hub = DirectHub()
        var writers: [IdleStreamTests.RecordingWriter] = []
        var deviceIDs: [String] = []
        for _ in 0..<count {
            let deviceID = try await harness.registerDevice(user: "alice")
            let writer = IdleStreamTests.RecordingWriter()
            let live = await IdleStreamTests.stream(
                deviceID, owner: "alice", harness: harness, hub: hub, devices: devices, deliveries: deliveries
            ).start(writer: writer)
            #expect(live != nil)
            writers.append(writer)
            deviceIDs.append(deviceID)
        }
        let sent = try await harness.send(to: "alice").notificationId

        let recordsBefore = deliveries.batchRecordsStarted
        deliveries.holdBatchRecords()
        #expect(await hub.wake(deviceIDs: deviceIDs) == count)
        // Every stream, the second batch's included, is written while the first batch's record is held ...
        let everyoneWritten = await eventually { writers.allSatisfy { $0.text.contains("id: \(sent)") } }
        #expect(everyoneWritten, "\(writers.filter { !$0.text.contains("id: \(sent)") }.count) streams not written")
        // ... and the second batch's record waits for the first: one record at a time.
        #expect(await eventually { deliveries.batchRecordsStarted == recordsBefore + 1 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(
            deliveries.batchRecordsStarted == recordsBefore + 1,
            "the second batch's record started before the first batch's was done")
        var status = try await harness.status(sent)
        #expect(status.deliveries.count == count)
        #expect(status.deliveries.allSatisfy { $0.status == .queued })

        deliveries.releaseBatchRecords()
        #expect(await eventually { deliveries.batchRecordsStarted == recordsBefore + 2 })
        #expect(
            try await eventually {
                status = try await harness.status(sent)
                return status.deliveries.allSatisfy { $0.status == .sent }
            }, "\(status.deliveries.filter { $0.status != .sent }.count) deliveries not recorded as sent")
        await hub.closeAll()
        #expect(await eventually { writers.allSatisfy(\.ended) })
    }
}
